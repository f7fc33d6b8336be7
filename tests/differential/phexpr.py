"""A small parser of Ph expressions, for the shrinker (shrink.py): it finds, in one line of a
program, every sub-expression and what each could be replaced by (an operand of it, an
argument, the inside of parentheses), as character spans of the line, so that a candidate
is the line with one span replaced by the text of another. It parses what phgen writes
(and the language's expressions in general): literals, names (`ctx.block.x`), calls, slices
`X[a :+ b, :, i]`, unary `-` and `!`, and the binary operators by precedence. It does not
type-check: a candidate that is not a valid program is refused by `ph check` and dropped.
"""
import re

TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)|([A-Za-z_][\w.]*)|"
                   r"(:\+|==|!=|<=|>=|&&|\|\||[-+*/<>!()\[\],:]))")
BINARY = [("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">="), ("+", "-"), ("*", "/")]


class Node:
    def __init__(self, kind, start, end, kids=(), name=""):
        self.kind, self.start, self.end, self.kids, self.name = kind, start, end, list(kids), name


class Parser:
    def __init__(self, text):
        self.text = text
        self.toks = []   # (kind, value, start, end)
        pos = 0
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise ValueError(f"cannot read `{text[pos:]}`")
            kind = "num" if m.group(1) else ("id" if m.group(2) else "op")
            self.toks.append((kind, m.group(m.lastindex), m.start(m.lastindex), m.end()))
            pos = m.end()
        self.i = 0

    def peek(self, v=None):
        if self.i >= len(self.toks):
            return None
        t = self.toks[self.i]
        return t if v is None or t[1] == v else None

    def take(self, v=None):
        t = self.peek(v)
        if t is None:
            raise ValueError(f"expected {v or 'more'}")
        self.i += 1
        return t

    def expr(self, level=0):
        if level == len(BINARY):
            return self.unary()
        left = self.expr(level + 1)
        while (t := self.peek()) and t[0] == "op" and t[1] in BINARY[level]:
            self.i += 1
            right = self.expr(level + 1)
            left = Node("bin", left.start, right.end, [left, right], t[1])
            if level == 2:
                break  # comparisons do not chain
        return left

    def unary(self):
        t = self.peek()
        if t and t[1] in ("-", "!"):
            self.i += 1
            x = self.unary()
            return Node("un", t[2], x.end, [x], t[1])
        return self.postfix()

    def postfix(self):
        x = self.primary()
        while self.peek("["):
            self.i += 1
            items = []
            while not self.peek("]"):
                if self.peek(":"):
                    self.i += 1
                else:
                    a = self.expr()
                    items.append(a)
                    if self.peek(":+") or self.peek(":"):
                        self.i += 1
                        if not (self.peek(",") or self.peek("]")):
                            items.append(self.expr())
                if self.peek(","):
                    self.i += 1
            end = self.take("]")[3]
            # The index expressions are simplified in place; the slice itself is never dropped.
            x = Node("index", x.start, end, [x] + items)
        return x

    def primary(self):
        t = self.take()
        if t[0] == "num":
            return Node("num", t[2], t[3])
        if t[1] == "(":
            x = self.expr()
            end = self.take(")")[3]
            return Node("paren", t[2], end, [x])
        if t[0] == "id":
            if self.peek("("):
                self.i += 1
                args = []
                while not self.peek(")"):
                    args.append(self.expr())
                    if self.peek(","):
                        self.i += 1
                end = self.take(")")[3]
                return Node("call", t[2], end, args, t[1])
            return Node("id", t[2], t[3], name=t[1])
        raise ValueError(f"unexpected `{t[1]}`")


def parse(text):
    p = Parser(text)
    n = p.expr()
    if p.i != len(p.toks):
        raise ValueError("trailing text")
    return n


def walk(n, in_index=False):
    yield n, in_index
    for i, k in enumerate(n.kids):
        yield from walk(k, in_index or (n.kind == "index" and i > 0))


def replacements(text, offset=0, keep_root=False):
    """(start, end, new text) of `text` (an expression) simplified one step: outer nodes first,
    each replaced by one of its operands (in parentheses where it is itself a binary operation),
    and a call or operation that is not an index by the literal 1.0. `keep_root`: the whole
    of `text` stays (a call statement)."""
    try:
        root = parse(text)
    except (ValueError, IndexError):
        return []
    out = []
    for n, in_index in walk(root):
        if keep_root and n is root:
            continue
        if n.kind in ("bin", "un", "paren", "call"):
            for k in n.kids:
                t = text[k.start:k.end]
                if k.kind == "bin" and n is not root:
                    t = "(" + t + ")"
                out.append((offset + n.start, offset + n.end, t))
        if n.kind in ("bin", "call", "un") and n is not root and not in_index:
            out.append((offset + n.start, offset + n.end, "1.0"))
    # Integer literals in index expressions (offsets): toward 0.
    for n, in_index in walk(root):
        if n.kind == "num" and in_index and text[n.start:n.end].isdigit() and int(text[n.start:n.end]) > 0:
            out.append((offset + n.start, offset + n.end, "0"))
    return out


STMT = re.compile(r"^(\s*)(?:(?:let|var)\s+\w+(?:\s*:\s*[^=]+)?\s*=\s*|[\w.]+(?:\[[^=]*\])?\s*(?:[-+*/]?=)\s*)(?=\S)")


def line_candidates(line):
    """Every one-step simplification of a program line (its expression parts), as new lines."""
    s = line.strip()
    spans = []
    c = re.match(r"^\s*(?:\} else )?if (.*) \{\s*$", line)
    if c:
        # An `if`'s condition: `a && b` -> `a`, `!(a)` -> `a`, ...
        spans.append((c.start(1), c.end(1)))
    elif not s or s.startswith(("kernel ", "fn ", "@", "}", "for ")) or s == "let row = ctx.block.x * BR":
        return []
    m = None if c else STMT.match(line)
    if c:
        pass
    elif m and "==" not in line[: m.end()].replace(" == ", ""):
        spans.append((m.end(), len(line.rstrip())))
        # A store's slice: its index expressions too (`row + 3` -> `row`).
        lhs = line[len(m.group(1)): m.end()]
        b = lhs.find("[")
        if b >= 0:
            e = lhs.rfind("]")
            spans.append((len(m.group(1)) + b + 1, len(m.group(1)) + e))
    elif re.match(r"^\s*\w+\(.*\)\s*$", line):
        spans.append((len(line) - len(line.lstrip()), len(line.rstrip()), True))
    out = []
    seen = set()
    for a, b, *keep in spans:
        text = line[a:b]
        reps = replacements(text, a, bool(keep))
        if not reps and "," in text:  # a slice list: each item on its own
            pos = a
            for item in text.split(","):
                reps += replacements(item.replace(":+", ",").split(",")[0], pos)
                pos += len(item) + 1
        for s0, e0, new in reps:
            cand = line[:s0] + new + line[e0:]
            if cand != line and cand not in seen:
                seen.add(cand)
                out.append(cand)
    return out
