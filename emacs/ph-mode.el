;;; ph-mode.el --- Major mode for Ph, a tile language for GPU kernels -*- lexical-binding: t -*-

;; Highlighting and indentation for .ph files, and ph-lsp registered with Eglot
;; (diagnostics, hover docs, navigation, completion, code actions come from the server).
;;
;;   (add-to-list 'load-path "/path/to/ph/emacs")
;;   (require 'ph-mode)
;;   (add-hook 'ph-mode-hook #'eglot-ensure)      ; optional: start ph-lsp on open
;;   (setq ph-lsp-program "/path/to/ph-lsp")      ; if it is not on PATH

;;; Code:

(require 'seq)
(require 'subr-x)
(require 'cl-lib)

(defgroup ph nil "Ph, a tile language for GPU kernels." :group 'languages)

(defcustom ph-lsp-program "ph-lsp"
  "The Ph language server executable (a name on PATH or a path)."
  :type 'string :group 'ph)

(defcustom ph-indent-offset 2
  "Indentation of a Ph block."
  :type 'integer :group 'ph)

(defcustom ph-run-sizes nil
  "Sizes for `ph-run', an alist of size symbol and value, e.g. ((Nq . 4096) (Nk . 4096))."
  :type '(alist :key-type symbol :value-type integer) :group 'ph)

(defcustom ph-no-gpu "ask"
  "What `ph-run' and `ph-bench' do without a GPU: \"ask\" offers the CPU target,
\"cpu\" uses it at once (answering \"always\" to the question sets this)."
  :type '(choice (const "ask") (const "cpu")) :group 'ph)

(defconst ph--builtins
  '("dot_t" "dot" "rowmax" "rowsum" "rowmin" "rowargmax" "colmax" "colsum" "tmax" "tmin" "where"
    "row_ids" "col_ids" "exp2" "exp" "log2" "log" "sqrt" "rsqrt" "abs" "tanh" "sigmoid" "erf"
    "sin" "cos" "floor" "mask_cols" "causal_mask" "extent" "range"))

(defconst ph--std-functions '("online_softmax" "attention" "rope_pairs" "rope" "kv_append"
                               "decode_attention" "paged_decode_attention" "combine_splits"))

(defconst ph-font-lock-keywords
  `(("^\\s-*\\(@\\s-*[A-Za-z_][A-Za-z0-9_]*\\)" 1 font-lock-preprocessor-face)
    ;; A parameter's name before its type: `Q: tensor<f16>[Nq, D]', `scale: f32'.
    ("\\_<\\([A-Za-z_][A-Za-z0-9_]*\\)\\s-*:\\s-*\\(?:tensor\\|tile\\|f16\\|bf16\\|f32\\|i32\\)\\_>"
     1 font-lock-variable-name-face)
    ("\\_<\\(true\\|false\\)\\_>" . font-lock-constant-face)
    ("\\_<\\(kernel\\|fn\\)\\_>\\s-+\\([A-Za-z_][A-Za-z0-9_]*\\)"
     (1 font-lock-keyword-face) (2 font-lock-function-name-face))
    ("\\_<\\(let\\|var\\)\\_>\\s-+\\([A-Za-z_][A-Za-z0-9_]*\\)"
     (1 font-lock-keyword-face) (2 font-lock-variable-name-face))
    (,(regexp-opt '("kernel" "fn" "let" "var" "for" "in" "if" "else") 'symbols) . font-lock-keyword-face)
    (,(regexp-opt '("tensor" "tile" "f16" "bf16" "f32" "i32" "f8e4m3" "f8e5m2") 'symbols) . font-lock-type-face)
    ("\\_<ctx\\(?:\\.block\\(?:\\.[xyz]\\)?\\)?\\_>" . font-lock-constant-face)
    (,(concat (regexp-opt (append ph--builtins ph--std-functions) 'symbols) "\\s-*(")
     1 font-lock-builtin-face)
    (":\\+" . font-lock-keyword-face)
    ("\\(?:^\\|[^A-Za-z0-9_.]\\)\\(-?[0-9]+\\(?:\\.[0-9]+\\)?\\(?:[eE][-+]?[0-9]+\\)?\\)\\_>"
     1 font-lock-constant-face))
  "Highlighting for `ph-mode' (mirrors the TextMate grammar).")

(defvar ph-mode-syntax-table
  (let ((st (make-syntax-table)))
    (modify-syntax-entry ?/ ". 12" st)
    (modify-syntax-entry ?\n ">" st)
    (modify-syntax-entry ?_ "_" st)
    (modify-syntax-entry ?@ "'" st)
    (modify-syntax-entry ?` "\"" st)
    ;; Operators are punctuation, so `tensor<f16>' is three symbols, not one.
    (dolist (c '(?< ?> ?+ ?- ?* ?= ?: ?, ?! ?& ?| ?%))
      (modify-syntax-entry c "." st))
    st)
  "Syntax table of `ph-mode': `//' comments to the end of the line.")

(defun ph-indent-line ()
  "Indent the current line by the depth of unclosed brackets before it."
  (interactive)
  (let* ((depth (save-excursion (car (syntax-ppss (line-beginning-position)))))
         (closing (save-excursion (back-to-indentation) (looking-at "[])}]")))
         (col (* ph-indent-offset (max 0 (- depth (if closing 1 0))))))
    (if (<= (current-column) (current-indentation))
        (indent-line-to col)
      (save-excursion (indent-line-to col)))))

;;;###autoload
(define-derived-mode ph-mode prog-mode "Ph"
  "Major mode for Ph kernels (.ph)."
  :syntax-table ph-mode-syntax-table
  (setq-local comment-start "// ")
  (setq-local comment-start-skip "///*\\s-*")
  (setq-local font-lock-defaults '(ph-font-lock-keywords))
  (setq-local indent-line-function #'ph-indent-line)
  (setq-local electric-indent-chars (append "{}[]()" electric-indent-chars)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.ph\\'" . ph-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs `(ph-mode . (lambda (&rest _) (list ph-lsp-program)))))

(defun ph--command-args (extra)
  "The arguments of a server command: EXTRA, plus the file and point unless EXTRA names them
(a lens's arguments name the kernel)."
  (append (unless (plist-member extra :uri)
            `(:uri ,(eglot--path-to-uri (buffer-file-name))
              ,@(unless (plist-member extra :kernel) `(:position ,(eglot--pos-to-lsp-position)))))
          extra))

(defun ph--command (command extra)
  "Run the server's COMMAND for the kernel at point, with EXTRA arguments."
  (require 'eglot)
  (let ((server (eglot-current-server)))
    (unless server (user-error "ph-lsp is not running here (M-x eglot)"))
    (jsonrpc-request server :workspace/executeCommand
                     `(:command ,command :arguments [,(ph--command-args extra)]))))

(defun ph--cell (v)
  "V as a table cell (numbers as VS Code and Neovim print them)."
  (cond ((null v) "")
        ((eq v :json-false) "no") ((eq v t) "yes")
        ((integerp v) (number-to-string v))
        ((floatp v) (let ((a (abs v)))
                      (cond ((and (= v (ffloor v)) (< a 1e15)) (format "%d" (truncate v)))
                            ((and (/= a 0) (or (< a 1e-3) (>= a 1e6)))
                             (replace-regexp-in-string "e\\([-+]\\)0*\\([0-9]\\)" "e\\1\\2" (format "%.3e" v)))
                            ((< a 1) (format "%.4f" v)) (t (format "%.3f" v)))))
        ((vectorp v) (mapconcat #'ph--cell v ","))
        ((and (listp v) (keywordp (car v)))
         (let (out) (while v (push (format "%s=%s" (substring (symbol-name (car v)) 1) (ph--cell (cadr v))) out)
                           (setq v (cddr v)))
              (mapconcat #'identity (sort out #'string<) " ")))
        (t (format "%s" v))))

(defconst ph--preferred
  '(:kernel :ptxas :config :configuration :target :gpu :device :sizes :grid :time_ms :timeMs :median_ms
    :tflops :TFLOPs :gbps :GBps :percentOfPeak :check :max_abs_err :maxError :max_error :error :ok :status)
  "Columns shown first, in this order, when present (the same as VS Code's).")

(defconst ph--hidden
  '(:result :stdout :stderr :summary :message :offer :exitCode :outputs :scalars :seed :analyze_ms :log
    :outputDir :defaultSizes :note :requestedTarget :figuresDetail :compile_ms :threads)
  "Keys that are plumbing, not figures.")

(defun ph--scalars (plist)
  (let (out)
    (while plist
      (let ((k (car plist)) (v (cadr plist)))
        ;; Objects and arrays are not figures (as in VS Code and Neovim), but for the sizes, the
        ;; grid, the configuration and the check: a run's `diagnostics' ([] when clean) made an
        ;; empty column that pushed the table to 113 columns.
        (unless (or (memq k ph--hidden)
                    (and (listp v) v (not (memq k '(:sizes :grid :config :check))))
                    (and (vectorp v) (not (memq k '(:sizes :grid :config)))))
          (setq out (plist-put out k v))))
      (setq plist (cddr plist)))
    out))

(defun ph--flatten-check (row)
  (let ((c (plist-get row :check)))
    (when (and (listp c) c (plist-member c :passed))
      (let ((worst nil))
        (mapc (lambda (o) (let ((e (or (plist-get o :max_abs_err) (plist-get o :maxError))))
                            (when (and (numberp e) (or (null worst) (> e worst))) (setq worst e))))
              (plist-get c :outputs))
        (setq row (plist-put row :check (if (eq (plist-get c :passed) t) "passed" "FAILED")))
        (when worst (setq row (plist-put row :max_abs_err worst)))))
    row))

(defun ph-result-rows (result)
  "The rows of a ph.run or ph.compile RESULT: one per variant or kernel."
  (let* ((inner (let ((r (plist-get result :result))) (and (listp r) (keywordp (car r)) r)))
         (base (append (ph--scalars inner) (ph--scalars result)))
         (holder (or inner result))
         (figs (plist-get result :figures)))
    (cond
     ((and (listp figs) figs)
      (let (rows)
        (while figs
          (push (append (list :kernel (substring (symbol-name (car figs)) 1) :ptxas (cadr figs))
                        (ph--scalars (plist-put (copy-sequence result) :kernel nil)))
                rows)
          (setq figs (cddr figs)))
        (sort rows (lambda (a b) (string< (plist-get a :kernel) (plist-get b :kernel))))))
     ((let ((v (or (plist-get holder :variants) (plist-get holder :results))))
        (and (vectorp v) (> (length v) 0)))
      (mapcar (lambda (row) (ph--flatten-check (append (ph--scalars row) (list :check (plist-get row :check)) base)))
              (or (plist-get holder :variants) (plist-get holder :results))))
     (t (list (ph--flatten-check (append base (list :check (plist-get holder :check)))))))))

(defun ph-format-table (rows)
  "ROWS as a fixed-width table: a header, a rule, one line per row (the same as VS Code's)."
  (if (null rows) "(no result)\n"
    (let (keys)
      (dolist (k ph--preferred)
        (when (seq-some (lambda (r) (plist-get r k)) rows) (push k keys)))
      (dolist (r rows)
        (let ((p r)) (while p (unless (or (memq (car p) keys) (memq (car p) ph--hidden) (null (cadr p)))
                                (setq keys (append keys nil)) (push (car p) keys))
                       (setq p (cddr p)))))
      (setq keys (let ((pref (seq-filter (lambda (k) (memq k ph--preferred)) keys))
                       (rest (seq-remove (lambda (k) (memq k ph--preferred)) keys)))
                   (append (seq-filter (lambda (k) (memq k pref)) ph--preferred)
                           (sort rest (lambda (a b) (string< (symbol-name a) (symbol-name b)))))))
      (let* ((names (mapcar (lambda (k) (substring (symbol-name k) 1)) keys))
             (cells (mapcar (lambda (r) (mapcar (lambda (k) (ph--cell (plist-get r k))) keys)) rows))
             (widths (seq-map-indexed (lambda (n i) (apply #'max (length n) (mapcar (lambda (c) (length (nth i c))) cells)))
                                      names))
             (line (lambda (cs) (string-trim-right
                                 (mapconcat #'identity (seq-map-indexed (lambda (c i) (string-pad c (nth i widths))) cs) " | ")))))
        (concat (funcall line names) "\n"
                (mapconcat (lambda (w) (make-string w ?-)) widths "-+-") "\n"
                (mapconcat (lambda (c) (funcall line c)) cells "\n") "\n")))))

(defun ph--header (title result secs)
  (let* ((inner (plist-get result :result))
         (sizes (or (and (listp inner) (plist-get inner :sizes)) (plist-get result :sizes)))
         (defaulted (append (plist-get result :defaultSizes) nil))
         (parts (list title)))
    (when (plist-get result :target) (push (format "on %s" (plist-get result :target)) parts))
    (when (and (listp sizes) sizes)
      (let (s any)
        (while sizes
          (let ((n (substring (symbol-name (car sizes)) 1)))
            (when (member n defaulted) (setq any t))
            (push (format "%s=%s%s" n (ph--cell (cadr sizes)) (if (member n defaulted) "*" "")) s))
          (setq sizes (cddr sizes)))
        (push (concat "sizes " (mapconcat #'identity (sort s #'string<) " ")) parts)
        (when any (push "(* the server's default: see ph-run-sizes)" parts))))
    (when (stringp (plist-get result :note)) (push (concat "· " (plist-get result :note)) parts))
    (format "── %s (%.2f s)" (mapconcat #'identity (nreverse parts) " ") secs)))

(defun ph--show-results (title result secs)
  "Show RESULT as a table in *ph results*."
  (with-current-buffer (get-buffer-create "*ph results*")
    (let ((inhibit-read-only t))
      (erase-buffer)
      (insert (ph--header title result secs) "\n" (ph-format-table (ph-result-rows result)))
      (when (and (eq (plist-get result :ok) :json-false) (stringp (plist-get result :stderr)))
        (insert (string-trim (plist-get result :stderr)) "\n"))
      (goto-char (point-min)))
    (setq buffer-read-only t truncate-lines t)
    (display-buffer (current-buffer)))
  (when (stringp (plist-get result :summary)) (message "%s" (plist-get result :summary))))

(defun ph--run-command (title extra)
  (let* ((sizes (let (pl) (dolist (kv ph-run-sizes (nreverse pl))
                           (push (intern (format ":%s" (car kv))) pl) (push (cdr kv) pl))))
         (t0 (float-time))
         (args `(,@extra :noGpu ,ph-no-gpu ,@(when sizes `(:sizes ,sizes))))
         (result (ph--command "ph.run" args)))
    (when (and (eq (plist-get result :ok) :json-false) (plist-get result :offer))
      ;; No GPU: the server offers the CPU target.
      (let ((answer (if (equal ph-no-gpu "cpu") ?y
                      (read-char-choice (format "%s. Run %s on the CPU target? (y, a = always, n) "
                                                (or (plist-get result :error) "No GPU") (plist-get result :kernel))
                                        '(?y ?a ?n)))))
        (when (eq answer ?a)
          (setq ph-no-gpu "cpu")
          (unless noninteractive (customize-save-variable 'ph-no-gpu "cpu")))
        (when (memq answer '(?y ?a))
          (setq result (ph--command "ph.run" (append (list :target "cpu" :noGpu "cpu") args))))))
    (ph--show-results title result (- (float-time) t0))
    result))

(defun ph-run (&optional target)
  "Run the kernel at point (on TARGET: auto, gpu, cpu, interp); the table goes to *ph results*."
  (interactive (list (completing-read "Target (default auto): " '("auto" "gpu" "cpu" "interp") nil t nil nil "auto")))
  (ph--run-command "ph.run" `(:target ,(or target "auto"))))

(defun ph-bench (&optional target)
  "Time every autotune variant of the kernel at point (on TARGET); the table goes to *ph results*."
  (interactive (list (completing-read "Target (default auto): " '("auto" "gpu" "cpu") nil t nil nil "auto")))
  (ph--run-command "ph.run (bench)" `(:target ,(or target "auto") :bench t)))

(defun ph-compile ()
  "Compile the file to cubin; the ptxas figures go to *ph results*."
  (interactive)
  (let* ((t0 (float-time))
         (result (ph--command "ph.compile" '(:target "gpu"))))
    (ph--show-results "ph.compile" result (- (float-time) t0))
    result))

(defvar ph-last-compiled nil "The last ph/compiled notification's parameters (compile on save).")

(with-eval-after-load 'eglot
  ;; Compile on save finished: its figures (or errors) in the echo area.
  (cl-defmethod eglot-handle-notification (_server (_method (eql ph/compiled)) &rest params)
    (setq ph-last-compiled params)
    (let ((msg (plist-get params :message)))
      (when (stringp msg) (message "ph: %s" msg)))
    ;; The build's figures are a lens of their own.
    (ph--lens-refresh-all (plist-get params :uri)))
  ;; The GPU found (or not) names the Run lens.
  (cl-defmethod eglot-handle-notification (_server (_method (eql ph/status)) &rest _params)
    (ph--lens-refresh-all))
  (cl-defmethod eglot-handle-request (_server (_method (eql workspace/codeLens/refresh)) &rest _params)
    (ph--lens-refresh-all)
    nil))

(defun ph--read-only-std ()
  "A jump into the standard library (.../std/NAME.ph) shows it read-only."
  (when (and (derived-mode-p 'ph-mode) buffer-file-name
             (string-match-p "/std/[^/]+\\.ph\\'" buffer-file-name))
    (read-only-mode 1)
    (message "ph: %s is the standard library: read-only" (file-name-nondirectory buffer-file-name))))
(add-hook 'xref-after-jump-hook #'ph--read-only-std)

;;; Code lenses: Eglot 1.9 shows none, so ph-mode asks for them itself.

(defcustom ph-code-lenses t
  "Show the server's code lenses above each kernel (Run, Benchmark, Compile, Show MLIR, the
grid and the last build's figures), as VS Code and Neovim do."
  :type 'boolean :group 'ph)

(defcustom ph-lens-delay 0.5
  "Seconds after the last edit before the lenses are asked for again."
  :type 'number :group 'ph)

(defface ph-lens-face '((t :inherit shadow))
  "Lenses that are text: the grid, the build's figures." :group 'ph)

(defface ph-lens-action-face '((t :inherit link :underline nil))
  "Lenses that run something when clicked." :group 'ph)

(defvar-local ph--lens-overlays nil "The overlays that show the lenses.")
(defvar-local ph--lens-timer nil "The timer of the next lens request.")
(defvar-local ph-lenses nil "The lenses last drawn: (LINE . LENSES) sorted by line, LINE 0-based.")
(defvar-local ph-lens-generation 0 "How many times the lenses were drawn (the tests wait on it).")

(defun ph--lens-schedule (&rest _)
  "Ask for the lenses again after `ph-lens-delay' seconds without edits."
  (when ph--lens-timer (cancel-timer ph--lens-timer))
  (let ((buf (current-buffer)))
    (setq ph--lens-timer
          (run-with-timer ph-lens-delay nil
                          (lambda () (when (buffer-live-p buf)
                                       (with-current-buffer buf
                                         (setq ph--lens-timer nil)
                                         (ph-lens-refresh))))))))

(defun ph-lens-refresh ()
  "Ask ph-lsp for this buffer's code lenses (textDocument/codeLens) and draw them."
  (interactive)
  (let ((server (and (bound-and-true-p ph-lens-mode) (eglot-current-server))))
    (when (and server (jsonrpc-running-p server))
      ;; Eglot sends edits on an idle timer; the server must have them before it answers.
      (eglot--signal-textDocument/didChange)
      (let ((buf (current-buffer))
            (version eglot--versioned-identifier))
        (jsonrpc-async-request
         server :textDocument/codeLens `(:textDocument ,(eglot--TextDocumentIdentifier))
         :success-fn (lambda (lenses)
                       (when (buffer-live-p buf)
                         (with-current-buffer buf
                           (if (= version eglot--versioned-identifier)
                               (ph--lens-draw lenses)
                             (ph--lens-schedule)))))
         :error-fn (lambda (_err) nil)
         :timeout-fn (lambda () nil))))))

(defun ph--lens-clear ()
  (mapc #'delete-overlay ph--lens-overlays)
  (setq ph--lens-overlays nil ph-lenses nil))

(defun ph--lens-action (lens)
  "A command that runs LENS (for its keymap)."
  (lambda (&optional _event)
    (interactive "e")
    (ph-lens-execute lens)))

(defun ph--lens-title (lens)
  "LENS's title: clickable when it has a command."
  (let* ((cmd (plist-get lens :command))
         (title (or (plist-get cmd :title) ""))
         (action (and (stringp (plist-get cmd :command)) (not (string-empty-p (plist-get cmd :command))))))
    (if (not action)
        (propertize title 'face 'ph-lens-face)
      (let ((map (make-sparse-keymap))
            (fn (ph--lens-action lens)))
        (define-key map [mouse-1] fn)
        (define-key map [mouse-2] fn)
        (define-key map [follow-link] 'mouse-face)
        (propertize title 'face 'ph-lens-action-face 'mouse-face 'highlight 'keymap map
                    'ph-lens lens 'help-echo (format "mouse-1: %s" title))))))

(defun ph--lens-draw (lenses)
  "Draw LENSES (a textDocument/codeLens answer) above their lines."
  (ph--lens-clear)
  (let ((by-line nil))
    (seq-doseq (l lenses)
      (let* ((line (plist-get (plist-get (plist-get l :range) :start) :line))
             (cell (assq line by-line)))
        (if cell (setcdr cell (append (cdr cell) (list l))) (push (list line l) by-line))))
    (setq ph-lenses (sort by-line (lambda (a b) (< (car a) (car b)))))
    (save-excursion
      (save-restriction
        (widen)
        (dolist (cell ph-lenses)
          (goto-char (point-min))
          (when (zerop (forward-line (car cell)))
            (let ((ov (make-overlay (line-beginning-position) (line-end-position) nil t nil))
                  (text (mapconcat #'ph--lens-title (cdr cell) (propertize " | " 'face 'ph-lens-face))))
              (overlay-put ov 'ph-lens t)
              (overlay-put ov 'before-string
                           (concat (make-string (current-indentation) ?\s) text "\n"))
              (push ov ph--lens-overlays))))))
    (setq ph-lens-generation (1+ ph-lens-generation))))

(defun ph--lens-choices ()
  "The lenses with a command, nearest the point's kernel first: (TITLE . LENS)."
  (let* ((line (1- (line-number-at-pos)))
         (cells (seq-filter (lambda (c) (seq-some (lambda (l) (ph--lens-command-name l)) (cdr c))) ph-lenses))
         (at (or (car (last (seq-filter (lambda (c) (<= (car c) line)) cells))) (car cells))))
    (mapcar (lambda (l) (cons (plist-get (plist-get l :command) :title) l))
            (append (seq-filter #'ph--lens-command-name (cdr at))
                    (seq-filter #'ph--lens-command-name
                                (apply #'append (mapcar #'cdr (remq at cells))))))))

(defun ph--lens-command-name (lens)
  (let ((c (plist-get (plist-get lens :command) :command)))
    (and (stringp c) (not (string-empty-p c)) c)))

(defun ph-lens-execute (&optional lens)
  "Run LENS; interactively, one of the lenses of the kernel at point (by its title)."
  (interactive
   (let ((choices (ph--lens-choices)))
     (unless choices (user-error "No code lens here (is ph-lsp running?)"))
     (list (cdr (assoc (completing-read (format "Lens (default %s): " (caar choices)) choices nil t nil nil
                                        (caar choices))
                       choices)))))
  (let* ((cmd (plist-get lens :command))
         (name (plist-get cmd :command))
         (args (let ((a (plist-get cmd :arguments))) (and (> (length a) 0) (aref a 0))))
         (src (current-buffer)))
    (pcase name
      ("ph.run" (ph--run-command (if (eq (plist-get args :bench) t) "ph.run (bench)" "ph.run") args))
      ("ph.compile"
       (let* ((t0 (float-time)) (result (ph--command "ph.compile" args)))
         (ph--show-results "ph.compile" result (- (float-time) t0))
         (with-current-buffer src (ph--lens-schedule))
         result))
      ("ph.showIR" (ph--show-ir src args))
      (_ (eglot-execute-command (eglot--current-server-or-lose) name (plist-get cmd :arguments))))))

(defvar ph-lens-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "C-c C-l") #'ph-lens-execute)
    m)
  "Keys of `ph-lens-mode'.")

(define-minor-mode ph-lens-mode
  "Show ph-lsp's code lenses above each kernel; click one, or \\[ph-lens-execute]."
  :lighter nil :keymap ph-lens-mode-map
  (if ph-lens-mode
      (progn
        (add-hook 'after-change-functions #'ph--lens-schedule nil t)
        (add-hook 'after-save-hook #'ph--lens-schedule nil t)
        (ph-lens-refresh))
    (remove-hook 'after-change-functions #'ph--lens-schedule t)
    (remove-hook 'after-save-hook #'ph--lens-schedule t)
    (when ph--lens-timer (cancel-timer ph--lens-timer) (setq ph--lens-timer nil))
    (ph--lens-clear)))

(defun ph--eglot-managed ()
  "Turn on the lenses in a ph-mode buffer that Eglot manages (off when it stops)."
  (when (derived-mode-p 'ph-mode)
    (ph-lens-mode (if (and ph-code-lenses (eglot-managed-p)
                           (eglot--server-capable :codeLensProvider))
                      1 -1))))
(add-hook 'eglot-managed-mode-hook #'ph--eglot-managed)

(defun ph--lens-refresh-all (&optional uri)
  "Ask again for the lenses of every ph buffer (of URI only, when given)."
  (dolist (b (buffer-list))
    (with-current-buffer b
      (when (and (bound-and-true-p ph-lens-mode)
                 (or (null uri) (and buffer-file-name (equal uri (eglot--path-to-uri buffer-file-name)))))
        (ph--lens-schedule)))))

;;; The IR view: Show MLIR (and the other stages) beside the source.

(defcustom ph-ir-stages '("tile" "gpu" "llvm" "ptx" "sass")
  "The stages `ph-show-ir' offers." :type '(repeat string) :group 'ph)

(defface ph-ir-highlight '((t :inherit highlight))
  "The IR lines of the source line at point, and the source line of the IR line at point."
  :group 'ph)

(defvar-local ph-ir-source nil "In an IR buffer: the source buffer it shows.")
(defvar-local ph-ir-args nil "In an IR buffer: the ph.showIR arguments that made it.")
(defvar-local ph-ir-lines nil "In an IR buffer: per IR line (0-based), its 0-based .ph line or nil.")
(defvar-local ph--ir-overlays nil)
(defvar-local ph--ir-views nil "In a source buffer: its IR buffers.")
(defvar-local ph--ir-last-line nil)

(defconst ph-ir-font-lock-keywords
  '(("^\\s-*//.*" . font-lock-comment-face)
    ("^#loc[0-9]*" . font-lock-comment-face)
    ("%[A-Za-z0-9_#:]+" . font-lock-variable-name-face)
    ("@[A-Za-z_][A-Za-z0-9_.]*" . font-lock-function-name-face)
    ("\\_<\\([a-z_]+\\.[a-z_.]+\\)\\_>" 1 font-lock-keyword-face)
    ("\\_<\\(?:tensor\\|memref\\|vector\\|[fi][0-9]+\\|bf16\\|index\\)\\_>" . font-lock-type-face))
  "Highlighting of printed MLIR (and, roughly, LLVM IR and PTX).")

(define-derived-mode ph-ir-mode special-mode "Ph-IR"
  "A kernel's IR from ph-lsp; the lines of the source line at point are highlighted."
  (setq-local font-lock-defaults '(ph-ir-font-lock-keywords))
  (setq truncate-lines t)
  (add-hook 'post-command-hook #'ph--ir-follow-ir nil t))

(define-key ph-ir-mode-map (kbd "g") #'ph-ir-refresh)

(defun ph--ir-text (text)
  "TEXT without the trailing ` loc(...)' of each line (the map has them)."
  (mapconcat (lambda (l) (if (string-prefix-p "#loc" l) l
                           (replace-regexp-in-string "[ \t]+loc(.*)[ \t]*\\'" "" l)))
             (split-string text "\n") "\n"))

(defun ph--ir-fill (buf result)
  "Put RESULT (a ph.showIR answer) into the IR buffer BUF."
  (with-current-buffer buf
    (let ((inhibit-read-only t) (line (line-number-at-pos)))
      (erase-buffer)
      (insert (ph--ir-text (or (plist-get result :text) "")))
      (setq ph-ir-lines (plist-get result :sourceLines))
      (goto-char (point-min)) (forward-line (1- line)))))

(defun ph--show-ir (src args)
  "Show the IR that ph.showIR answers for ARGS (of the source buffer SRC) beside it."
  (let* ((result (with-current-buffer src (ph--command "ph.showIR" args)))
         (stage (or (plist-get result :stage) (plist-get args :stage) "tile"))
         (name (format "*ph-ir %s.%s*" (plist-get result :kernel) stage))
         (buf (get-buffer-create name)))
    (with-current-buffer buf
      (unless (derived-mode-p 'ph-ir-mode) (ph-ir-mode))
      (setq ph-ir-source src
            ph-ir-args (with-current-buffer src
                          (ph--command-args (if (plist-member args :kernel) args
                                              (append (list :kernel (plist-get result :kernel)) args))))))
    (ph--ir-fill buf result)
    (with-current-buffer src
      (add-to-list 'ph--ir-views buf)
      (add-hook 'post-command-hook #'ph--ir-follow-source nil t)
      (add-hook 'after-save-hook #'ph--ir-refresh-views nil t)
      (setq ph--ir-last-line nil)
      (ph--ir-follow-source))
    (display-buffer buf '(display-buffer-in-side-window (side . right) (window-width . 0.5)))
    buf))

(defun ph-show-ir (&optional stage)
  "Show the kernel at point as STAGE (tile: the MLIR tile dialect; gpu, llvm, ptx, sass) beside
the source; moving point in either highlights the lines the other made or came from."
  (interactive (list (completing-read "Stage (default tile): " ph-ir-stages nil t nil nil "tile")))
  (ph--show-ir (current-buffer) `(:stage ,(or stage "tile"))))

(defun ph-show-mlir ()
  "Show the tile-dialect MLIR of the kernel at point (the \"Show MLIR\" lens)."
  (interactive)
  (ph-show-ir "tile"))

(defun ph--ir-highlight (buf lines)
  "Highlight the 0-based LINES of BUF (no others); show the first in BUF's window."
  (with-current-buffer buf
    (mapc #'delete-overlay ph--ir-overlays)
    (setq ph--ir-overlays nil)
    (save-excursion
      (dolist (l lines)
        (goto-char (point-min))
        (when (zerop (forward-line l))
          (let ((ov (make-overlay (line-beginning-position) (min (point-max) (1+ (line-end-position))))))
            (overlay-put ov 'face 'ph-ir-highlight)
            (overlay-put ov 'ph-ir t)
            (push ov ph--ir-overlays)))))
    (let ((w (get-buffer-window buf)))
      (when (and w lines (not (eq w (selected-window))))
        (with-selected-window w
          (goto-char (point-min)) (forward-line (apply #'min lines))
          (unless (pos-visible-in-window-p) (recenter)))))))

(defun ph-ir-highlighted-lines (&optional buf)
  "The 0-based lines of BUF (an IR or source buffer) that are highlighted now."
  (with-current-buffer (or buf (current-buffer))
    (sort (mapcar (lambda (o) (1- (line-number-at-pos (overlay-start o)))) ph--ir-overlays) #'<)))

(defun ph--ir-follow-source ()
  "In a source buffer: highlight, in each IR view, the lines of the line at point."
  (let ((line (1- (line-number-at-pos))))
    (unless (eql line ph--ir-last-line)
      (setq ph--ir-last-line line)
      (setq ph--ir-views (seq-filter #'buffer-live-p ph--ir-views))
      (dolist (v ph--ir-views)
        (let ((map (buffer-local-value 'ph-ir-lines v)) out)
          (dotimes (i (length map))
            (when (eql (aref map i) line) (push i out)))
          (ph--ir-highlight v (nreverse out)))))))

(defun ph--ir-follow-ir ()
  "In an IR buffer: highlight the source line that the IR line at point came from."
  (when (and ph-ir-source (buffer-live-p ph-ir-source) ph-ir-lines)
    (let* ((i (1- (line-number-at-pos)))
           (src (and (< i (length ph-ir-lines)) (aref ph-ir-lines i))))
      (ph--ir-highlight ph-ir-source (and (integerp src) (list src))))))

(defun ph-ir-refresh ()
  "Ask again for this IR buffer's IR (the source buffer's text as it is now)."
  (interactive)
  (let ((buf (current-buffer)) (src ph-ir-source) (args ph-ir-args))
    (when (and (buffer-live-p src) args)
      (with-current-buffer src
        (let ((server (eglot-current-server)))
          (when server
            (jsonrpc-async-request
             server :workspace/executeCommand `(:command "ph.showIR" :arguments [,args])
             :success-fn (lambda (result)
                           (when (buffer-live-p buf)
                             (ph--ir-fill buf result)
                             (when (buffer-live-p src)
                               (with-current-buffer src (setq ph--ir-last-line nil) (ph--ir-follow-source)))))
             :error-fn (lambda (err) (message "ph: Show IR: %s" (plist-get err :message))))))))))

(defun ph--ir-refresh-views ()
  "After a save: refresh the open IR views of this buffer."
  (setq ph--ir-views (seq-filter #'buffer-live-p ph--ir-views))
  (dolist (v ph--ir-views) (with-current-buffer v (ph-ir-refresh))))

(provide 'ph-mode)
;;; ph-mode.el ends here
