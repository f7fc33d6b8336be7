;;; ph-mode.el --- Major mode for Ph, a tile language for GPU kernels -*- lexical-binding: t -*-

;; Highlighting and indentation for .ph files, and ph-lsp registered with Eglot
;; (diagnostics, hover docs, navigation, completion, code actions come from the server).
;;
;;   (add-to-list 'load-path "/path/to/ph/emacs")
;;   (require 'ph-mode)
;;   (add-hook 'ph-mode-hook #'eglot-ensure)      ; optional: start ph-lsp on open
;;   (setq ph-lsp-program "/path/to/ph-lsp")      ; if it is not on PATH

;;; Code:

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

(defconst ph--builtins
  '("dot_t" "dot" "rowmax" "rowsum" "tmax" "tmin" "exp2" "exp" "log" "sqrt" "rsqrt" "abs"
    "mask_cols" "causal_mask" "extent" "range"))

(defconst ph--std-functions '("online_softmax" "attention" "rope_pairs" "rope"))

(defconst ph-font-lock-keywords
  `(("^\\s-*\\(@\\s-*[A-Za-z_][A-Za-z0-9_]*\\)" 1 font-lock-preprocessor-face)
    ("\\_<\\(kernel\\|fn\\)\\_>\\s-+\\([A-Za-z_][A-Za-z0-9_]*\\)"
     (1 font-lock-keyword-face) (2 font-lock-function-name-face))
    ("\\_<\\(let\\|var\\)\\_>\\s-+\\([A-Za-z_][A-Za-z0-9_]*\\)"
     (1 font-lock-keyword-face) (2 font-lock-variable-name-face))
    (,(regexp-opt '("kernel" "fn" "let" "var" "for" "in") 'symbols) . font-lock-keyword-face)
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

(defun ph-run (&optional target)
  "Run the kernel at point (on TARGET: auto, gpu, cpu, interp) and show the result."
  (interactive (list (completing-read "Target: " '("auto" "gpu" "cpu" "interp") nil t nil nil "auto")))
  (let* ((sizes (let (pl) (dolist (kv ph-run-sizes (nreverse pl))
                           (push (intern (format ":%s" (car kv))) pl) (push (cdr kv) pl))))
         (result (ph--command "ph.run" `(:target ,(or target "auto")
                                         ,@(when sizes `(:sizes ,sizes))))))
    (with-current-buffer (get-buffer-create "*ph results*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (pp-to-string result)))
      (display-buffer (current-buffer)))
    result))

(provide 'ph-mode)
;;; ph-mode.el ends here
