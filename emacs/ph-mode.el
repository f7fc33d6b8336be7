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
  '("dot_t" "dot" "rowmax" "rowsum" "tmax" "tmin" "exp2" "exp" "log" "sqrt" "rsqrt" "abs"
    "mask_cols" "causal_mask" "extent" "range"))

(defconst ph--std-functions '("online_softmax" "attention" "rope_pairs" "rope"))

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
    (,(regexp-opt '("tensor" "tile" "f16" "bf16" "f32" "i32") 'symbols) . font-lock-type-face)
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

(defun ph--command (command extra)
  "Run the server's COMMAND for the kernel at point, with EXTRA arguments."
  (require 'eglot)
  (let* ((server (eglot-current-server))
         (args (append `(:uri ,(eglot--path-to-uri (buffer-file-name))
                        :position ,(eglot--pos-to-lsp-position))
                       extra)))
    (unless server (user-error "ph-lsp is not running here (M-x eglot)"))
    (jsonrpc-request server :workspace/executeCommand
                     `(:command ,command :arguments [,args]))))

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
        (unless (or (memq k ph--hidden)
                    (and (listp v) v (not (memq k '(:sizes :grid :config :check)))))
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
      (when (stringp msg) (message "ph: %s" msg))))
  (cl-defmethod eglot-handle-notification (_server (_method (eql ph/status)) &rest _params) nil))

(defun ph--read-only-std ()
  "A jump into the standard library (.../std/NAME.ph) shows it read-only."
  (when (and (derived-mode-p 'ph-mode) buffer-file-name
             (string-match-p "/std/[^/]+\\.ph\\'" buffer-file-name))
    (read-only-mode 1)
    (message "ph: %s is the standard library: read-only" (file-name-nondirectory buffer-file-name))))
(add-hook 'xref-after-jump-hook #'ph--read-only-std)

(provide 'ph-mode)
;;; ph-mode.el ends here
