#!/usr/bin/python3
"""phgen: random Ph programs that are valid by construction (issue 17).

    phgen.py SEED            print the program of SEED and its case (sizes, inputs, outputs)

`generate(seed)` returns a Case: the source text, the kernel's name, the sizes, the scalar
arguments, every tensor the kernel reads (with its dtype and shape in size names) and every
tensor it writes, each output with an error bound derived from the types and the reduction
lengths along the way (see `Val`). The same seed gives the same case, byte for byte.

How it stays valid: every value the generator builds carries its shape (compile-time extents,
each with the name the program uses for it), its element type, a bound on its magnitude and a
bound on the difference two correct targets may show for it. An expression is only built from
values whose shapes broadcast to the wanted one, element types that may meet (f16 and bf16 never
do: a program picks one 16-bit type), and functions whose argument is in range (exp on a bounded
argument, log and sqrt of `abs(x) + c`, division by `abs(y) + 1`). Each CTA owns the rows
`ctx.block.x * BR :+ BR` of every output, so no two CTAs write one element.

Extending it: a new expression form is one more `_expr_*` method that returns a `Val` and
is listed in `Gen.expr`'s table; a new statement form one more `_stmt_*` method listed in
`Gen.statement`'s table. Each records its feature name in `self.features`, which the runner
counts.
"""
import json
import math
import random
import sys
from dataclasses import dataclass, field

# Unit roundoff per element type, and the floor used for transcendental functions (GPU
# approximations such as ex2.approx are good to a few ulp of f32, not to half an ulp).
UNIT = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8, "i32": 0.0}
FN_ULP = 4e-6
HALF_MAX = {"f16": 6.0e4, "bf16": 1.0e30}


@dataclass
class Dim:
    text: str   # as written in the program: `BR`, `16`
    value: int  # its compile-time value

    def __eq__(self, o):
        return isinstance(o, Dim) and self.value == o.value and self.text == o.text

    def __hash__(self):
        return hash((self.text, self.value))


ONE = Dim("1", 1)


@dataclass
class Val:
    text: str
    elem: str         # f32, f16, bf16, i32 (an i32 tile), or "lit" (a literal scalar)
    shape: tuple      # tuple of Dim; () for a scalar
    bound: float      # |value| <= bound
    err: float        # |target - fp64 interpreter| <= err
    intlike: bool = False   # holds small exact integers (i32 loads and +,-,* of them)
    prec: int = 0     # operator precedence of the text: 0 atom, 1 *, 2 +


@dataclass
class Var:
    name: str
    val: Val          # the type and bounds of what it holds now
    mutable: bool


@dataclass
class Tensor:
    name: str
    elem: str
    dims: list        # of str: size names, autotune names or integers as text
    read: bool = False
    written: bool = False
    # The row offset every store into it uses: CTA b writes rows b * BR + offset :+ BR, and
    # two offsets would let neighbouring CTAs write the same rows (a race on the GPU).
    rows_at: str = None


@dataclass
class Case:
    seed: int
    source: str
    kernel: str
    sizes: dict
    args: dict
    configs: list            # list of {name: value}; one entry per autotune configuration
    inputs: dict             # name -> {"dtype": ..., "dims": [...]} (read, maybe also written)
    outputs: dict            # name -> {"dtype": ..., "dims": [...], "tol": abs error bound}
    features: list = field(default_factory=list)

    def to_json(self):
        return json.dumps(self.__dict__, indent=1, sort_keys=True)

    @staticmethod
    def from_json(text):
        return Case(**json.loads(text))


# Language revision the checker implements, set by `generate` (the runner probes `ph`):
# with integer tiles (issue 16), i32 tiles meeting i32 tiles stay i32 (`+ - * tmax tmin`, unary
# minus); before it, any arithmetic on an i32 tile gave f32.
INT_TILES = False


def promote(a, b):
    """The element type of `a op b` for tiles, as the checker has it (frontend/lib/Types.cpp
    `promote`): a literal takes the other side's type (an i32 tile stays i32, with integer
    tiles), 16-bit meeting f32 gives f32, i32 meeting a float type gives that type."""
    if a == "lit":
        e = b
    elif b == "lit":
        e = a
    elif a == b:
        e = a
    elif "f32" in (a, b):
        e = "f32"
    elif a == "i32":
        e = b
    elif b == "i32":
        e = a
    else:
        e = "f32"
    if e == "i32" and INT_TILES and a in ("i32", "lit") and b in ("i32", "lit"):
        # An i32 tile keeps its type against a literal too (`X * 2`, `tmax(X, 4)`, `where(c,
        # X, 3)`): modelling that as f32 let a float literal or a float slice meet it later
        # (E0322, E0310: seeds 300350 and 300467 among seeds 300000-301999).
        return "i32"
    return "f32" if e in ("lit", "i32") else e


def maybe_int(v):
    """May the checker type `v` as an i32 tile (so that a non-integer float literal meeting it
    is E0322)? i32 values, and `intlike` ones, whose i32-ness this model may have lost."""
    return v.elem == "i32" or (v.intlike and v.elem != "lit")


def opunit(elem):
    return UNIT["f32" if elem in ("lit", "i32") else elem]


def divunit(elem):
    """A division's error: f32 `/` is within 2 ulp on the GPU (div.full.f32, docs/language.md,
    "Precision"), 4 units of `opunit`; a 16-bit one is correctly rounded."""
    return (4.0 if elem in ("f32", "lit", "i32") else 1.0) * opunit(elem)


def fmt(x):
    """A float literal Ph's lexer accepts."""
    s = repr(float(x))
    return s if ("." in s or "e" in s) else s + ".0"


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        r = self.r
        self.features = set()
        self.half = r.choice(["f16", "bf16"])
        self.tensorcore = r.random() < 0.3
        self.launch = r.choice([32, 64, 96, 128, 128, 160, 192, 256])
        # Autotune constants: the row block BR, the loop step BC, a column extent D.
        self.BR = r.choice([1, 8, 16, 16, 32, 32, 64])
        self.BC = r.choice([8, 16, 32])
        self.D = r.choice([8, 16, 32, 64])
        self.two_configs = r.random() < 0.15
        self.br_alt = r.choice([x for x in (8, 16, 32) if x != self.BR]) if self.two_configs else None
        self.used_consts = set()
        self.aligned = r.random() < 0.3
        # Sizes: M rows (the grid), K the streamed length, H a batch index (ctx.block.y).
        brmax = max(self.BR, self.br_alt or 0)
        if self.aligned:
            lcm = self.BR * (self.br_alt or 1) // math.gcd(self.BR, self.br_alt or 1)
            self.M = lcm * r.randint(1, max(1, 96 // lcm))
        else:
            self.M = r.randint(1, 3 * brmax + 9)
        self.K = r.choice([1, r.randint(1, 40), r.randint(20, 160)])
        self.H = r.randint(1, 3)
        # With a grid along y, every CTA (x, y) owns rows of its own slice ctx.block.y of every
        # output: stores index the outputs by ctx.block.y, so no two CTAs write one element.
        self.grid_y = r.random() < 0.25
        # Choices added later draw from their own stream, so that adding one leaves the
        # programs of every seed as they were (seeds written down in docs keep their meaning).
        self.r2 = random.Random(seed * 1000003 + 17)
        self.explicit_grid = self.r2.random() < 0.15
        self.tensors = {}
        self.order = []
        self.fns = []
        self.args = {}
        self.scalars = []   # (name, Val) of f32 / i32 scalar parameters
        self.uses_y = False
        self.nstmt = 0
        self.names = 0
        self.loop_depth = 0
        self.in_fn = False
        self.loops_at = {}
        self.loop_stack = []   # (counter, start, end, static) of the loops around, for `if`
        self.if_depth = 0

    # ---------------------------------------------------------------- names, dims, tensors
    # Builtins a prefix and a counter can spell (`f` + 16): the conversions of issue 16
    # made these names reserved (E0215).
    RESERVED = {"f16", "f32", "i32", "bf16", "i1", "f64", "i64", "i8", "i16"}

    def fresh(self, prefix):
        while True:
            self.names += 1
            name = f"{prefix}{self.names}"
            if name not in self.RESERVED:
                return name

    def const(self, name):
        self.used_consts.add(name)
        v = {"BR": self.BR, "BC": self.BC, "D": self.D}[name]
        return Dim(name, v)

    def rowdim(self):
        return self.const("BR")

    def coldim(self):
        r = self.r.random()
        if r < 0.4:
            return self.const("D")
        return Dim(str(v := self.r.choice([1, 4, 8, 16, 24, 32])), v)

    def tensor(self, elem, dims, role):
        """A tensor parameter with these dims (strings); reused when one of that type exists."""
        for t in self.tensors.values():
            if t.elem == elem and t.dims == dims and self.r.random() < 0.5 and (
                    (role == "read" and not t.written) or (role == "write" and not t.read)):
                return t
        t = Tensor(self.fresh({"read": "X", "write": "O", "rw": "Y"}[role]), elem, dims)
        self.tensors[t.name] = t
        self.order.append(t.name)
        return t

    def input_elem(self, allow_int=True):
        r = self.r.random()
        if r < 0.4:
            return "f32"
        if r < 0.85 or not allow_int:
            return self.half
        return "i32"

    # ---------------------------------------------------------------- leaves
    def load(self, shape, elem=None):
        """A slice of a tensor that gives a tile of `shape` (rows BR or 1, or 1-D BR)."""
        elem = elem or self.input_elem()
        r = self.r
        intlike = elem == "i32"
        bound = 7.0 if intlike else 1.0
        if len(shape) == 1:
            self.features.add("load-1d")
            if r.random() < 0.5:
                t = self.tensor(elem, ["M"], "read")
                text = f"{t.name}[{self.rowstart()} :+ {shape[0].text}]"
            else:
                c = r.choice([2, 3, 8])
                t = self.tensor(elem, ["M", str(c)], "read")
                text = f"{t.name}[{self.rowstart()} :+ {shape[0].text}, {r.randrange(c)}]"
                self.features.add("integer-index")
            t.read = True
            return Val(text, elem, shape, bound, 0.0, intlike)
        rows, cols = shape
        if rows.value == 1 and rows.text == "1" and r.random() < 0.7:
            # A broadcast row: one row of a small fixed-size or K-row tensor.
            nr = r.choice(["4", "K"])
            t = self.tensor(elem, [nr, cols.text if not cols.text.isdigit() else cols.text], "read")
            j = r.randrange(4) if nr == "4" else 0
            text = f"{t.name}[{j} :+ 1, :]"
            self.features.add("row-broadcast-load")
        else:
            form = r.random()
            rs = self.rowstart() if rows.value == self.BR and rows.text == "BR" else None
            if rs is None:
                rs = self.rowstart()
            if form < 0.55:
                t = self.tensor(elem, ["M", cols.text], "read")
                text = f"{t.name}[{rs} :+ {rows.text}, :]"
                self.features.add("slice-colon")
            elif form < 0.75:
                # A column window at an unaligned start in a wider fixed-width tensor.
                width = cols.value + r.choice([1, 3, 8])
                off = r.randint(0, width - cols.value)
                t = self.tensor(elem, ["M", str(width)], "read")
                text = f"{t.name}[{rs} :+ {rows.text}, {off} :+ {cols.text}]"
                self.features.add("slice-col-window")
            elif form < 0.9:
                # A 3-D tensor indexed by ctx.block.y (the grid's y) or by an integer.
                if self.grid_y and r.random() < 0.6 and not self.in_fn:
                    self.uses_y = True
                    t = self.tensor(elem, ["H", "M", cols.text], "read")
                    text = f"{t.name}[ctx.block.y, {rs} :+ {rows.text}, :]"
                    self.features.add("index-block-y")
                else:
                    n = r.choice([2, 3])
                    t = self.tensor(elem, [str(n), "M", cols.text], "read")
                    text = f"{t.name}[{r.randrange(n)}, {rs} :+ {rows.text}, :]"
                    self.features.add("integer-index")
            else:
                # Trailing integer index (GPT-J's pairs): [M, C, 2] -> [BR, C].
                t = self.tensor(elem, ["M", cols.text, "2"], "read")
                text = f"{t.name}[{rs} :+ {rows.text}, :, {r.randrange(2)}]"
                self.features.add("integer-index")
        t.read = True
        return Val(text, elem, shape, bound, 0.0, intlike)

    def rowstart(self):
        r = self.r.random()
        if r < 0.75:
            self.features.add("slice-aligned")
            return "row"
        self.features.add("slice-unaligned")
        return f"row + {self.r.choice([1, 3, 5, 7])}"

    def literal(self, other=None):
        """A literal scalar; against an i32 tile (`other`) an integer one: a float literal
        meeting an i32 operand is E0322 (docs/diagnostics.md), not a truncation."""
        if other is not None and other.elem == "i32":
            v = self.r.choice([1, 2, 3, 4])
            self.features.add("int-literal")
            if self.r.random() < 0.2:
                v = -v
            return Val(str(v), "lit", (), abs(v), 0.0, True, 1 if v < 0 else 0)
        v = self.r.choice([0.5, 0.25, 1.5, 2.0, 0.125, 3.0, 0.75])
        if self.r.random() < 0.2:
            v = -v
        return Val(fmt(v), "lit", (), abs(v), 0.0, float(v).is_integer(), 1 if v < 0 else 0)

    def int_safe(self, a, b):
        """(a, b) with a float literal on either side of an i32 tile made an integer literal.
        `intlike` values come from i32 loads (`X * 1` stays i32 in Ph even where this model
        says f32); an integer literal is right against a float tile too, so erring that way
        costs nothing."""
        def is_int(v):
            return v.elem == "i32" or (v.intlike and v.elem != "lit")
        if a.elem == "lit" and is_int(b) and "." in a.text:
            a = self.literal(Val(b.text, "i32", b.shape, b.bound, 0.0))
        if b.elem == "lit" and is_int(a) and "." in b.text:
            b = self.literal(Val(a.text, "i32", a.shape, a.bound, 0.0))
        return a, b

    # ---------------------------------------------------------------- expressions
    def expr(self, shape, depth, allow_int=True):
        """A value of exactly `shape` (which must be a tile shape)."""
        if depth <= 0 or self.r.random() < 0.25:
            return self.leaf(shape, allow_int)
        table = [(self._expr_binary, 5), (self._expr_unary, 2), (self._expr_bcast, 2),
                 (self._expr_minmax, 1)]
        if len(shape) == 2 and not self.in_fn:
            table += [(self._expr_reduce_bcast, 1)]
        if "where" in CAPS and len(shape) == 2 and not self.in_fn:
            # Not in a fn: a condition reads tensors (exact values), which a fn cannot name.
            table += [(self._expr_where, 2)]
        f = self.pick(table)
        return f(shape, depth)

    def pick(self, table):
        tot = sum(w for _, w in table)
        x = self.r.random() * tot
        for f, w in table:
            x -= w
            if x < 0:
                return f
        return table[-1][0]

    def leaf(self, shape, allow_int=True):
        cands = [v for v in self.vars if v.val.shape == shape and (allow_int or not v.val.intlike)]
        if cands and self.r.random() < 0.7:
            v = self.r.choice(cands)
            return Val(v.name, v.val.elem, shape, v.val.bound, v.val.err, v.val.intlike)
        if self.in_fn:
            # Inside a fn there is nothing but the parameters: scale one.
            cands = [v for v in self.vars if v.val.shape == shape]
            if not cands:
                return self.literal()
            v = self.r.choice(cands)
            return Val(v.name, v.val.elem, shape, v.val.bound, v.val.err, v.val.intlike)
        return self.load(shape, None if allow_int else self.input_elem(False))

    def paren(self, v, prec):
        return f"({v.text})" if v.prec > prec else v.text

    def _expr_binary(self, shape, depth):
        a = self.expr(shape, depth - 1)
        op = self.r.choice(["+", "-", "*", "*", "/"])
        if op == "/":
            # An i32 tile keeps its type against a literal (docs/language.md): `x / 0.5` would be
            # `x / 0`. An integer numerator divides by a float expression instead.
            b = (self.expr(shape, depth - 1, allow_int=False) if (self.r.random() < 0.6 or a.elem == "i32")
                 else self.literal())
            if b.elem == "lit":
                den = Val(b.text if not b.text.startswith("-") else f"({b.text})", "lit", (), b.bound, 0.0)
                lo = b.bound
                text = f"{self.paren(a, 1)} / {den.text}"
                elem = promote(a.elem, "lit")
                bound = a.bound / lo
                err = a.err / lo + divunit(elem) * bound
                return self.check_half(Val(text, elem, shape, bound, err, False, 1))
            den_text = f"(abs({b.text}) + 1.0)"
            elem = promote(a.elem, b.elem)
            bound = a.bound
            # abs(b) + 1.0 is computed in b's type (a literal takes the other side's type).
            den_err = b.err + opunit(promote(b.elem, "lit")) * (b.bound + 1)
            err = a.err + a.bound * den_err + divunit(elem) * bound
            self.features.add("divide")
            return self.check_half(Val(f"{self.paren(a, 1)} / {den_text}", elem, shape, bound, err, False, 1))
        b = self.expr(shape, depth - 1) if self.r.random() < 0.7 else self.literal(a)
        a, b = self.int_safe(a, b)
        elem = promote(a.elem, b.elem)
        if op == "*":
            bound = a.bound * b.bound
            err = a.err * b.bound + b.err * a.bound + a.err * b.err + opunit(elem) * bound
            text = f"{self.paren(a, 1)} * {self.paren(b, 0)}"
            prec = 1
        else:
            bound = a.bound + b.bound
            err = a.err + b.err + opunit(elem) * bound
            text = f"{self.paren(a, 2)} {op} {self.paren(b, 1)}"
            prec = 2
        return self.check_half(Val(text, elem, shape, bound, err, a.intlike and b.intlike and bound < 1e6, prec))

    def check_half(self, v):
        """Keep 16-bit arithmetic from overflowing: past the limit, scale down in f32."""
        if v.elem in HALF_MAX and v.bound > 1000.0:
            s = 1.0 / 2 ** math.ceil(math.log2(v.bound))
            return Val(f"({v.text}) * {fmt(s)}", v.elem, v.shape, v.bound * s, v.err * s + opunit(v.elem) * v.bound * s, False, 1)
        return v

    def _expr_unary(self, shape, depth):
        a = self.expr(shape, depth - 1)
        fs = ["exp", "exp2", "log", "sqrt", "rsqrt", "abs", "neg"]
        if "fns2" in CAPS:
            fs += ["tanh", "sigmoid", "erf", "sin", "cos", "log2"] + (["floor"] if a.err == 0 else [])
        f = self.r.choice(fs)
        elem = "f32" if a.elem in ("lit", "i32") else a.elem
        u = max(opunit(elem), FN_ULP)
        self.features.add("fn-" + f)
        if f in ("exp", "exp2"):
            arg = a
            if a.bound > 4.0 and maybe_int(a):
                # An integer tile keeps its type against a literal (`x * 0.25` is E0322): clamp it.
                arg = Val(f"tmin({a.text}, 4)", a.elem, shape, 4.0, a.err, a.intlike)
            elif a.bound > 4.0:
                s = 2.0 ** -math.ceil(math.log2(a.bound / 4.0))
                arg = Val(f"{self.paren(a, 1)} * {fmt(s)}", elem, shape, a.bound * s, a.err * s + opunit(elem) * a.bound * s, False, 1)
            base = math.e if f == "exp" else 2.0
            bound = base ** arg.bound
            err = bound * (arg.err * math.log(base) + u) + bound * u
            return self.check_half(Val(f"{f}({arg.text})", elem, shape, bound, err))
        if f in ("tanh", "sigmoid", "erf", "sin", "cos"):
            # Bounded by 1 with derivative at most 1.13 (erf): the argument's error carries over.
            err = 1.13 * (a.err + u * a.bound) + u
            return Val(f"{f}({a.text})", elem, shape, 1.0, err)
        if f == "log2":
            bound = math.log2(a.bound + 1.0)
            err = 1.45 * (a.err + u * (a.bound + 1)) + u * max(bound, 1.0)
            return Val(f"log2(abs({a.text}) + 1.0)", elem, shape, bound, err)
        if f == "floor":
            # Only of exact values (loads, integers): a target one ulp off would jump by 1.
            return Val(f"floor({a.text})", elem, shape, a.bound + 1, 0.0, a.intlike)
        if f == "log":
            # log(|a| + 1): derivative <= 1.
            bound = math.log(a.bound + 1.0)
            err = a.err + u * (a.bound + 1) + u * max(bound, 1.0)
            return Val(f"log(abs({a.text}) + 1.0)", elem, shape, bound, err)
        if f == "sqrt":
            # sqrt(|a| + 0.25): derivative <= 1 (`+ 1` for an integer tile: 0.25 would be E0322).
            c = "1" if maybe_int(a) else "0.25"
            bound = math.sqrt(a.bound + float(c))
            err = a.err + u * (a.bound + 1) + u * bound
            return Val(f"sqrt(abs({a.text}) + {c})", elem, shape, bound, err)
        if f == "rsqrt":
            # rsqrt(|a| + 1) <= 1, derivative <= 1/2.
            err = a.err + u * (a.bound + 1) + u
            return Val(f"rsqrt(abs({a.text}) + 1.0)", elem, shape, 1.0, err)
        if f == "abs":
            return Val(f"abs({a.text})", elem, shape, a.bound, a.err, a.intlike)
        if a.elem == "i32":
            elem = "i32"  # the checker negates an i32 tile as 0 - x and keeps it i32
        return Val(f"-{self.paren(a, 0)}", elem, shape, a.bound, a.err, a.intlike, 1)

    def condition(self, shape, depth):
        """A condition of `shape` whose value no rounding can change: comparisons of exact
        values only (loads, literals, index tiles), so that two targets always agree on it."""
        r = self.r
        forms = ["load-lit", "load-load"]
        if "ids" in CAPS and len(shape) == 2:
            forms += ["ids", "ids", "ids-size"]
        form = r.choice(forms)
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        if form == "load-lit":
            x = self.load(shape, r.choice(["f32", self.half, "i32"]))
            lit = r.choice(["0.25", "-0.5", "0.0", "3.0"]) if x.elem != "i32" else r.choice(["3", "4"])
            c = f"{x.text} {op} {lit}"
        elif form == "load-load":
            x = self.load(shape, self.half)
            y = self.load(shape, self.half)
            c = f"{x.text} {op} {y.text}"
        else:
            t = next((v.name for v in self.vars if v.val.shape == shape), None)
            if t is None:
                t = self.load(shape, "f32").text
            i = f"row + row_ids({t})"
            j = f"col_ids({t})"
            self.features.add("index-tiles")
            if form == "ids-size":
                c = f"{i} {op} {r.choice(['M', 'extent(%s, 0)' % t, '7'])}".replace("extent(%s, 0)" % t, str(shape[0].value))
            else:
                c = f"{j} {op} {i}" if r.random() < 0.5 else f"{j} + {r.randint(0, 5)} {op} {i} - {r.randint(0, 3)}"
        if r.random() < 0.3:
            c2 = self.condition(shape, 0) if depth > 0 else f"{self.load(shape, 'f32').text} > 0.0"
            c = f"({c}) {r.choice(['&&', '||'])} ({c2})"
            self.features.add("condition-logic")
        if r.random() < 0.1:
            c = f"!({c})"
        self.features.add("compare")
        return c

    def _expr_where(self, shape, depth):
        c = self.condition(shape, 1)
        a = self.expr(shape, depth - 1)
        b = self.expr(shape, depth - 1) if self.r.random() < 0.7 else self.literal(a)
        a, b = self.int_safe(a, b)
        self.features.add("where")
        return Val(f"where({c}, {a.text}, {b.text})", promote(a.elem, b.elem), shape, max(a.bound, b.bound),
                   max(a.err, b.err), a.intlike and b.intlike)

    def _expr_minmax(self, shape, depth):
        a = self.expr(shape, depth - 1)
        b = self.expr(shape, depth - 1) if self.r.random() < 0.6 else self.literal(a)
        a, b = self.int_safe(a, b)
        f = self.r.choice(["tmax", "tmin"])
        self.features.add(f)
        return Val(f"{f}({a.text}, {b.text})", promote(a.elem, b.elem), shape, max(a.bound, b.bound),
                   max(a.err, b.err), a.intlike and b.intlike)

    def _expr_bcast(self, shape, depth):
        """A full tile meeting a broadcast one: [R, 1], [1, C] or a scalar."""
        a = self.expr(shape, depth - 1)
        r = self.r.random()
        if self.in_fn:
            r = 0.95
        if len(shape) == 2 and r < 0.4:
            b = self.expr((shape[0], ONE), depth - 1)
            self.features.add("broadcast-cols")
        elif len(shape) == 2 and r < 0.8:
            b = self.expr((ONE, shape[1]), depth - 1)
            self.features.add("broadcast-rows")
        elif self.scalars and r < 0.9:
            n, sv = self.r.choice(self.scalars)
            b = Val(n, sv.elem, (), sv.bound, 0.0, sv.intlike)
            self.features.add("broadcast-scalar-param")
        else:
            b = self.literal(a)
            self.features.add("broadcast-scalar")
        a, b = self.int_safe(a, b)
        op = self.r.choice(["+", "-", "*"])
        elem = promote(a.elem, b.elem)
        if op == "*":
            bound = a.bound * b.bound
            err = a.err * b.bound + b.err * a.bound + a.err * b.err + opunit(elem) * bound
            return self.check_half(Val(f"{self.paren(a, 1)} * {self.paren(b, 0)}", elem, shape, bound, err, a.intlike and b.intlike, 1))
        bound = a.bound + b.bound
        err = a.err + b.err + opunit(elem) * bound
        if self.r.random() < 0.5:
            text = f"{self.paren(a, 2)} {op} {self.paren(b, 1)}"
        else:
            text = f"{self.paren(b, 2)} {op} {self.paren(a, 1)}"
        return self.check_half(Val(text, elem, shape, bound, err, a.intlike and b.intlike, 2))

    def reduce(self, x, kind):
        """rowsum / rowmax of a 2-D value: [R, C] -> [R, 1]."""
        c = x.shape[1].value
        elem = "f32" if x.elem == "lit" else x.elem
        shape = (x.shape[0], ONE)
        self.features.add(kind)
        if kind == "rowmax":
            return Val(f"rowmax({x.text})", elem, shape, x.bound, x.err, x.intlike)
        bound = c * x.bound
        err = c * x.err + opunit(elem) * c * bound
        return self.check_half(Val(f"rowsum({x.text})", elem, shape, bound, err, x.intlike and bound < 1e6))

    def _expr_reduce_bcast(self, shape, depth):
        """x - rowmax(x), x * rowsum(y) ...: a reduction broadcast back over the columns."""
        if shape[1].value == 1:
            return self._expr_binary(shape, depth)
        x = self.expr(shape, depth - 1)
        red = self.reduce(x, self.r.choice(["rowmax", "rowsum"]))
        y = self.expr(shape, depth - 1) if self.r.random() < 0.5 else x
        elem = promote(y.elem, red.elem)
        bound = y.bound + red.bound
        err = y.err + red.err + opunit(elem) * bound
        return self.check_half(Val(f"{self.paren(y, 2)} - {red.text}", elem, shape, bound, err, False, 2))

    # ---------------------------------------------------------------- statements
    def statement(self, depth):
        if "if" in CAPS and depth > 0 and not self.in_fn and self.r2.random() < 0.14:
            # Drawn from the second stream: a seed whose program has no `if` keeps it.
            return self._stmt_if(depth)
        table = [(self._stmt_let, 4), (self._stmt_assign, 3), (self._stmt_store, 3),
                 (self._stmt_partial, 1), (self._stmt_mask, 1)]
        if self.loop_depth < 2 and depth > 0:
            table += [(self._stmt_loop, 4), (self._stmt_two_loops, 1)]
        if not self.in_fn and self.loop_depth == 0 and depth > 0:
            table += [(self._stmt_fn_call, 1), (self._stmt_fn_tensor, 1), (self._stmt_attention, 1)]
        self.pick(table)(depth)

    # ---------------------------------------------------------------- if
    def scalar_condition(self, rng, loops=()):
        """A scalar condition (one value for the whole CTA, E0323 otherwise) that every target
        computes exactly: comparisons of sizes, `extent`s, `ctx.block.x`/`.y`, `row`, loop
        counters and the scalar parameter `s` with integers (or, for `s`, float literals),
        combined with `&&`, `||`, `!`. `loops` are (counter, start, end, static) of the loops
        around; `rng` is the stream to draw from (Gen.r2 where the seed's program must not
        change)."""
        atoms = []
        M = self.M
        atoms.append(lambda: (f"row + BR > M", "block"))
        atoms.append(lambda: (f"row + BR <= M", "block"))
        atoms.append(lambda: (f"ctx.block.x {rng.choice(['==', '>', '<', '!=', '>='])} {rng.choice([0, 1, 2])}", "block"))
        atoms.append(lambda: (f"M {rng.choice(['>', '<=', '>=', '<'])} {rng.randint(1, 2 * M + 4)}", "size"))
        ktens = [t for t in self.tensors.values() if "K" in t.dims and (t.read or t.written)]
        if ktens:
            atoms.append(lambda: (f"K {rng.choice(['>', '<=', '!='])} {rng.randint(1, 2 * self.K + 4)}", "size"))
            atoms.append(lambda: (f"extent({rng.choice(ktens).name}, 0) >= {rng.randint(1, 2 * self.K + 4)}", "size"))
        if self.uses_y and self.grid_y:
            atoms.append(lambda: (f"ctx.block.y {rng.choice(['==', '>', '!='])} {rng.choice([0, 1])}", "block-y"))
        if self.scalars:
            atoms.append(lambda: (f"s {rng.choice(['>', '<', '>='])} {rng.choice(['0.0', '1.0', '-0.5'])}", "scalar"))
        for kv, start, end, static in loops:
            if static:
                atoms.append(lambda kv=kv: (f"{kv} {rng.choice(['==', '>', '<', '!='])} {rng.choice([0, 1, 2])}", "loop-var"))
            else:
                atoms.append(lambda kv=kv, start=start: (f"{kv} {rng.choice(['==', '>'])} {start}", "loop-var"))
                atoms.append(lambda kv=kv, end=end: (f"{kv} + BC {rng.choice(['>', '<='])} {end}", "loop-var"))
                atoms.append(lambda kv=kv: (f"{kv} < 2 * BC", "loop-var"))
        if loops:
            # Mostly the loop's own counter: the block of keys that is skipped or treated apart.
            atoms += atoms[-3:] * 2

        def one():
            text, kind = rng.choice(atoms)()
            self.features.add("if-cond-" + kind)
            return text
        c = one()
        x = rng.random()
        if x < 0.3:
            c = f"{c} {rng.choice(['&&', '||'])} {one()}"
            self.features.add("if-cond-logic")
            if rng.random() < 0.3:
                c = f"({c}) {rng.choice(['&&', '||'])} {one()}"
        if rng.random() < 0.15:
            c = f"!({c})"
            self.features.add("if-cond-not")
        return c

    def _stmt_if(self, depth):
        """`if c { } else if d { } else { }` on a scalar condition: the branches assign tiles
        declared before the `if` (loop-local ones inside a loop), declare their own (not seen
        after it), store, loop, call fns. After it a variable holds what one branch (or none,
        without `else`) left: its bound and error are the largest of those."""
        r = self.r
        self.features.add("if")
        if self.loop_depth:
            self.features.add("if-in-loop")
        if not [v for v in self.vars if v.mutable and v.val.shape] and r.random() < 0.6:
            # A tile for the branches to assign, so that a value flows through the `if`.
            self.declare(self.expr(self.tile_shape(), r.randint(0, 2)), True, typed=r.random() < 0.3)
        saved = list(self.vars)
        before = {id(v): v.val for v in saved}
        self.emit(f"if {self.scalar_condition(r, self.loop_stack)} {{")
        self.if_depth += 1
        if self.if_depth > 1:
            self.features.add("if-nested")
        nbranch = 2 if r.random() < 0.5 else 1
        chain = nbranch == 2 and r.random() < 0.25
        ends = []
        for b in range(nbranch):
            if b:
                if chain:
                    self.body.append("  " * self.indent + f"}} else if {self.scalar_condition(r, self.loop_stack)} {{")
                    self.features.add("if-else-if")
                else:
                    self.body.append("  " * self.indent + "} else {")
                    self.features.add("if-else")
            for v in saved:
                v.val = before[id(v)]
            self.vars = list(saved)
            self.indent += 1
            for i in range(r.randint(1, 2)):
                outer = [v for v in saved if v.mutable and v.val.shape]
                if i == 0 and outer and r.random() < 0.75:
                    self._stmt_assign(depth - 1)
                    self.features.add("if-assign-outer")
                else:
                    self.statement(depth - 1)
            self.indent -= 1
            ends.append({id(v): v.val for v in saved})
        self.emit("}")
        self.if_depth -= 1
        if nbranch == 1 or chain:
            ends.append(before)  # no branch runs
        changed = []
        for v in saved:
            vals = [e[id(v)] for e in ends]
            if any(x is not before[id(v)] for x in vals):
                changed.append(v)
            v.val = Val(v.name, v.val.elem, v.val.shape, max(x.bound for x in vals), max(x.err for x in vals),
                        all(x.intlike for x in vals))
        self.vars = saved
        if changed and r.random() < 0.5:
            v = r.choice(changed)
            self.store(Val(v.name, v.val.elem, v.val.shape, v.val.bound, v.val.err, v.val.intlike))
            self.features.add("if-value-stored")

    def tile_shape(self):
        r = self.r.random()
        if r < 0.08:
            self.features.add("tile-1d")
            return (self.rowdim(),)
        if r < 0.18:
            return (self.rowdim(), ONE)
        return (self.rowdim(), self.coldim())

    def emit(self, line):
        self.body.append("  " * self.indent + line)
        self.nstmt += 1

    def declare(self, v, mutable, typed=False):
        name = self.fresh("v" if mutable else "t")
        if typed and len(v.shape) == 2 and v.elem != "f32":
            # A declared f32 type widens.
            self.emit(f"var {name}: tile<f32>[{v.shape[0].text}, {v.shape[1].text}] = {v.text}")
            v = Val(name, "f32", v.shape, v.bound, v.err, v.intlike)
            self.features.add("var-typed")
            mutable = True
        else:
            self.emit(f"{'var' if mutable else 'let'} {name} = {v.text}")
        self.vars.append(Var(name, Val(name, v.elem, v.shape, v.bound, v.err, v.intlike), mutable))
        return self.vars[-1]

    def _stmt_let(self, depth):
        shape = self.tile_shape()
        v = self.expr(shape, self.r.randint(0, 3))
        self.declare(v, self.r.random() < 0.6, typed=self.r.random() < 0.3)

    def assignable(self, v, var):
        """May `var = v` be written (no narrowing, no shape change)?"""
        t = var.val.elem
        if v.shape != var.val.shape:
            return False
        if t == "f32":
            return True
        if t == "i32":
            return v.elem == "i32"
        return v.elem in (t, "lit")

    def _stmt_assign(self, depth):
        vs = [v for v in self.vars if v.mutable and v.val.shape]
        if not vs:
            return self._stmt_let(depth)
        var = self.r.choice(vs)
        for _ in range(4):
            e = self.expr(var.val.shape, self.r.randint(0, 2))
            if self.assignable(e, var):
                break
        else:
            return
        op = self.r.choice(["=", "=", "+=", "-=", "*="])
        if var.val.elem == "i32":
            op = "="  # kept from before integer tiles (i32 arithmetic then gave f32)
        old = var.val
        if op == "=":
            nb, ne = e.bound, e.err
        elif op == "*=":
            nb = old.bound * e.bound
            ne = old.err * e.bound + e.err * old.bound + opunit(old.elem) * nb
        else:
            nb = old.bound + e.bound
            ne = old.err + e.err + opunit(old.elem) * nb
        if old.elem in HALF_MAX and nb > 1000.0:
            op, nb, ne = "=", e.bound, e.err
        self.features.add("assign" + ("" if op == "=" else "-compound"))
        self.emit(f"{var.name} {op} {e.text}")
        var.val = Val(var.name, old.elem, old.shape, nb, ne, old.intlike and e.intlike and op != "*=")

    def _stmt_partial(self, depth):
        """x[:, o :+ w] = e: part of a tile variable, in place."""
        vs = [v for v in self.vars if v.mutable and len(v.val.shape) == 2 and v.val.shape[1].value >= 2]
        if not vs:
            return self._stmt_let(depth)
        var = self.r.choice(vs)
        c = var.val.shape[1].value
        w = self.r.choice([x for x in (1, 2, 4, 8, 16) if x <= c])
        o = self.r.randint(0, c - w)
        shape = (var.val.shape[0], Dim(str(w), w))
        e = self.expr(shape, self.r.randint(0, 2))
        if not self.assignable(Val(e.text, e.elem, var.val.shape, 0, 0), var):
            # Narrowing happens only in a store into a tensor (E0310): into a 16-bit variable
            # the value is converted explicitly (`f16(e)`, docs/language.md "Conversions"), one
            # rounding more. Not into an i32 one: truncation would turn an ulp into 1.
            t = var.val.elem
            if "conv" not in CAPS or t not in HALF_MAX or e.bound > 1000.0:
                return
            e = Val(f"{t}({e.text})", t, shape, e.bound, e.err + UNIT[t] * e.bound, False)
            self.features.add("convert")
        self.emit(f"{var.name}[:, {o} :+ {w}] = {e.text}")
        self.features.add("partial-assign")
        old = var.val
        var.val = Val(var.name, old.elem, old.shape, max(old.bound, e.bound), max(old.err, e.err), old.intlike and e.intlike)

    def _stmt_mask(self, depth):
        vs = [v for v in self.vars if v.mutable and len(v.val.shape) == 2 and v.val.elem == "f32"]
        if not vs or self.in_fn:
            return self._stmt_let(depth)
        var = self.r.choice(vs)
        if self.r.random() < 0.5:
            n = self.r.choice(["3", "extent(%s, 1) - 1" % var.name, "K", "K - 2"])
            if n in ("K", "K - 2"):
                n = n.replace("K", self.k_extent())
            v = self.r.choice([0.0, -1.0, 2.0])
            self.emit(f"mask_cols({var.name}, {n}, {fmt(v)})")
            self.features.add("mask_cols")
            old = var.val
            var.val = Val(var.name, old.elem, old.shape, max(old.bound, abs(v)), old.err, False)
        else:
            col = self.r.choice(["0", "row", "row - 5", "3"])
            self.emit(f"causal_mask({var.name}, row, {col})")
            self.features.add("causal_mask")
            # Masked elements become -inf-like (-1e30): keep them out of arithmetic by
            # taking the max with a literal afterwards.
            self.emit(f"{var.name} = tmax({var.name}, -2.0)")
            old = var.val
            var.val = Val(var.name, old.elem, old.shape, max(old.bound, 2.0), old.err, False)

    def k_extent(self):
        t = self.tensor(self.input_elem(False), ["K", "4"], "read")
        t.read = True
        return f"extent({t.name}, 0)"

    def _stmt_store(self, depth):
        shape = self.tile_shape()
        e = self.expr(shape, self.r.randint(0, 3))
        self.store(e)

    def store(self, e):
        r = self.r
        if e.intlike and r.random() < 0.5:
            elem = "i32"
        else:
            elem = r.choice(["f32", self.half])
        if self.grid_y:
            self.uses_y = True
            self.features.add("store-block-y")
            if len(e.shape) == 1:
                t = self.tensor(elem, ["H", "M"], "write")
                text = f"{t.name}[ctx.block.y, {self.rows_of(t)} :+ {e.shape[0].text}]"
            else:
                rows, cols = e.shape
                t = self.tensor(elem, ["H", "M", cols.text], "write")
                text = f"{t.name}[ctx.block.y, {self.rows_of(t)} :+ {rows.text}, :]"
        elif len(e.shape) == 1:
            t = self.tensor(elem, ["M"], "write")
            text = f"{t.name}[{self.rows_of(t)} :+ {e.shape[0].text}]"
        else:
            rows, cols = e.shape
            form = r.random()
            if form < 0.6:
                t = self.tensor(elem, ["M", cols.text], "write")
                text = f"{t.name}[{self.rows_of(t)} :+ {rows.text}, :]"
            elif form < 0.8:
                width = cols.value + r.choice([1, 4, 8])
                off = r.randint(0, width - cols.value)
                t = self.tensor(elem, ["M", str(width)], "write")
                text = f"{t.name}[{self.rows_of(t)} :+ {rows.text}, {off} :+ {cols.text}]"
                self.features.add("store-col-window")
            else:
                n = r.choice([2, 3])
                t = self.tensor(elem, [str(n), "M", cols.text], "write")
                text = f"{t.name}[{r.randrange(n)}, {self.rows_of(t)} :+ {rows.text}, :]"
                self.features.add("store-integer-index")
        t.written = True
        self.emit(f"{text} = {e.text}")
        self.features.add("store-" + elem)
        self.record_out(t.name, e, elem)

    def rows_of(self, t):
        if t.rows_at is None:
            t.rows_at = self.rowstart()
        return t.rows_at

    def record_out(self, name, e, elem):
        """An output's bound: `tol` on every element (4 err + 2 u_out bound), and the tighter
        form the runners use, `abs` + `rel` |reference| per element: rounding to the output's
        type moves an element by at most u_out of its own magnitude, not of the bound."""
        tol = 4.0 * e.err + 2.0 * UNIT[elem] * e.bound + 1e-30
        ab, rel = 4.0 * e.err + 1e-30, 2.0 * UNIT[elem]
        if elem == "i32":
            tol = ab = 0.0 if e.intlike else 1.0
            rel = 0.0
        self.out_tol[name] = max(self.out_tol.get(name, 0.0), tol)
        self.out_bound[name] = max(self.out_bound.get(name, 0.0), e.bound)
        self.out_abs[name] = max(self.out_abs.get(name, 0.0), ab)
        self.out_rel[name] = max(self.out_rel.get(name, 0.0), rel)

    def _stmt_loop(self, depth):
        """A loop over K with loop-carried tiles: dot, dot_t, row reductions, a decaying sum."""
        r = self.r
        kind = r.choice(["dot", "dot_t", "rowsum", "rowmax", "decay", "static"])
        BC = self.const("BC")
        rows = self.rowdim()
        cols = self.coldim()
        kv = self.fresh("k")
        # The trip count at the generated sizes: bounds grow with it.
        if kind == "static":
            n = r.randint(1, 4)
            step = r.choice([1, 2])
            header = f"for {kv} in range(0, {n * step}, {step}) {{"
            loop = (kv, "0", str(n * step), True)
            trips = n
            self.features.add("loop-static")
        else:
            start = r.choice([0, 0, 0, 1])
            end_t = self.tensor(self.input_elem(False), ["K", "4"], "read") if r.random() < 0.3 else None
            if end_t:
                end_t.read = True
                end = f"extent({end_t.name}, 0)"
            else:
                end = "K" if r.random() < 0.5 else "extent(%s, 0)" % self.k_tensor_name()
            header = f"for {kv} in range({start}, {end}, BC) {{"
            loop = (kv, str(start), end, False)
            trips = max(0, math.ceil((self.K - start) / min(self.BC, BC.value)))
            self.features.add("loop-symbolic")
        if self.loop_depth > 0:
            self.features.add("loop-nested")
        if self.loops_at.get((self.loop_depth, id(self.body)), 0):
            self.features.add("loop-sequence")
        self.loops_at[(self.loop_depth, id(self.body))] = 1
        T = max(trips, 1)
        acc_name = self.fresh("acc")
        half_ok = self.half
        if kind in ("dot", "dot_t"):
            opel = r.choice([self.half, self.half, "f32"])
            acc_shape = (rows, cols)
            self.emit(f"var {acc_name}: tile<f32>[{rows.text}, {cols.text}] = {fmt(r.choice([0.0, 0.5]))}")
            acc = Var(acc_name, Val(acc_name, "f32", acc_shape, 0.5, 0.0), True)
        elif kind in ("rowsum", "rowmax"):
            acc_shape = (rows, ONE)
            init = -1.0 if kind == "rowmax" else 0.0
            self.emit(f"var {acc_name}: tile<f32>[{rows.text}, 1] = {fmt(init)}")
            acc = Var(acc_name, Val(acc_name, "f32", acc_shape, 1.0, 0.0), True)
        else:
            acc_shape = (rows, cols)
            self.emit(f"var {acc_name}: tile<f32>[{rows.text}, {cols.text}] = 0.25")
            acc = Var(acc_name, Val(acc_name, "f32", acc_shape, 0.25, 0.0), True)
        self.emit(header)
        self.indent += 1
        self.loop_depth += 1
        self.loop_stack.append(loop)
        mark = len(self.body)
        if kind in ("dot", "dot_t"):
            a = self.kslice(opel, kv, rows, "A")
            if kind == "dot":
                b = self.kslice_rows(opel, kv, cols)
            else:
                b = self.kslice(opel, kv, cols, "B")
            self.features.add(kind)
            kbc = BC.value
            e = a.bound * b.bound * kbc
            # Both operands have one type: products of 16-bit values are exact in f32, and an
            # f32 x f32 dot stays f32 under @tensorcore too (only a 16-bit operand meeting an
            # f32 one is rounded), so what differs is the f32 accumulation order.
            u = opunit("f32")
            err = e * (u * kbc + 2 * u)
            self.emit(f"{acc_name} += {kind}({a.text}, {b.text})")
            bound = acc.val.bound + T * e
            acc.val = Val(acc_name, "f32", acc_shape, bound, T * err + opunit("f32") * bound * T)
        elif kind in ("rowsum", "rowmax"):
            x = self.kslice(self.input_elem(), kv, rows, "A")
            if r.random() < 0.5:
                x = Val(f"exp({x.text})", "f32" if x.elem == "i32" else x.elem, x.shape, math.e ** x.bound if x.elem != "i32" else math.e ** 7, 0.0)
                x.err = x.bound * 2 * max(opunit(x.elem), FN_ULP)
                if x.elem == "i32" or x.bound > 1000:
                    x = Val(f"abs({x.text.replace('exp(', '(', 1)})", "f32", x.shape, 7.0, 0.0)
            red = self.reduce(x, kind)
            if kind == "rowsum":
                self.emit(f"{acc_name} += {red.text}")
                bound = 1.0 + T * red.bound
                acc.val = Val(acc_name, "f32", acc_shape, bound, T * red.err + T * opunit("f32") * bound)
            else:
                self.emit(f"{acc_name} = tmax({acc_name}, {red.text})")
                acc.val = Val(acc_name, "f32", acc_shape, max(1.0, red.bound), red.err)
        else:
            x = self.expr(acc_shape, 1) if kind == "static" else self.kslice(self.input_elem(), kv, rows, "A", cols)
            c = r.choice([0.5, 0.75, 1.0])
            self.emit(f"{acc_name} = {acc_name} * {fmt(c)} + {self.paren(x, 2)}")
            bound = acc.val.bound + T * x.bound
            acc.val = Val(acc_name, "f32", acc_shape, bound, T * (x.err + 2 * opunit("f32") * bound))
            self.features.add("loop-carried-decay")
        # The update is built first so that the loop-local statements (emitted before it) see
        # the loop-carried tile with the bound it reaches after the last iteration. They may read
        # it and the variables declared before the loop, but not change them: a change repeated
        # every iteration compounds (x *= y, T times), which the bounds here do not follow.
        update = self.body[mark:]
        del self.body[mark:]
        if "if" in CAPS and len(update) == 1 and self.r2.random() < 0.2:
            update = self.guard_update(update[0], acc_name, kind, loop)
        saved = list(self.vars)
        frozen = [(v, v.mutable) for v in self.vars]
        for v in self.vars:
            v.mutable = False
        self.vars.append(Var(acc.name, acc.val, False))
        for _ in range(r.randint(0, 2)):
            self.statement(depth - 1)
        for v, m in frozen:
            v.mutable = m
        self.vars = saved
        self.body.extend(update)
        self.loop_stack.pop()
        self.loop_depth -= 1
        self.indent -= 1
        self.emit("}")
        self.vars.append(acc)
        if r.random() < 0.5:
            self.store(Val(acc_name, "f32", acc_shape, acc.val.bound, acc.val.err))

    def guard_update(self, line, acc, kind, loop):
        """The loop-carried update under an `if` on the counter (a block of keys skipped, the
        partial last block or the first one treated apart), sometimes with an `else` that
        updates it another way of the same bound (`-=` for `+=`, `tmin` for `tmax`, `- x` for
        `+ x`): fewer or other updates of the same size keep the bound. Drawn from Gen.r2 only,
        so that a seed's program keeps everything else."""
        rr = self.r2
        ind = line[: len(line) - len(line.lstrip())]
        cond = self.scalar_condition(rr, [loop])
        out = [f"{ind}if {cond} {{", "  " + line]
        self.features.update(["if", "if-in-loop", "if-guard-update"])
        if rr.random() < 0.4:
            if kind in ("dot", "dot_t", "rowsum"):
                alt = line.replace(f"{acc} += ", f"{acc} -= ", 1)
            elif kind == "rowmax":
                alt = line.replace(f"{acc} = tmax(", f"{acc} = tmin(", 1)
            else:
                alt = line.replace(" + ", " - ", 1)
            if alt != line:
                out += [f"{ind}}} else {{", "  " + alt]
                self.features.add("if-else")
        out.append(f"{ind}}}")
        return out

    def _stmt_two_loops(self, depth):
        """Two loops in sequence (the second may read what the first carried out)."""
        self._stmt_loop(depth)
        self._stmt_loop(depth)

    def k_tensor_name(self):
        cands = [t for t in self.tensors.values() if t.dims and t.dims[0] == "K" and not t.written]
        if cands:
            t = self.r.choice(cands)
        else:
            t = self.tensor(self.input_elem(False), ["K", "4"], "read")
        t.read = True
        return t.name

    def kslice(self, elem, kv, rows, prefix, cols=None):
        """[rows, BC] of an [M, K] tensor at column kv (or [rows, cols] of a [K, cols] one)."""
        if cols is not None:
            t = self.tensor(elem, ["K", cols.text], "read")
            t.read = True
            return Val(f"{t.name}[{kv} :+ {rows.text}, :]", elem, (rows, cols), 7.0 if elem == "i32" else 1.0, 0.0, elem == "i32")
        dim = "M" if rows.text == "BR" else rows.text
        t = self.tensor(elem, [dim, "K"], "read")
        t.read = True
        rs = self.rowstart() if dim == "M" else "0"
        return Val(f"{t.name}[{rs} :+ {rows.text}, {kv} :+ BC]", elem, (rows, self.const("BC")), 7.0 if elem == "i32" else 1.0, 0.0, elem == "i32")

    def kslice_rows(self, elem, kv, cols):
        t = self.tensor(elem, ["K", cols.text], "read")
        t.read = True
        return Val(f"{t.name}[{kv} :+ BC, :]", elem, (self.const("BC"), cols), 1.0, 0.0)

    # ---------------------------------------------------------------- fns
    def make_fn(self, params):
        """A fn over `params` (Vals at the call site): its body assigns the first one."""
        name = self.fresh("f")
        saved = (self.vars, self.body, self.indent, self.in_fn)
        pnames = [f"p{i}" for i in range(len(params))]
        self.vars = [Var(n, Val(n, p.elem, p.shape, p.bound, p.err, p.intlike), i == 0) for i, (n, p) in enumerate(zip(pnames, params))]
        self.body = []
        self.indent = 1
        self.in_fn = True
        target = self.vars[0]
        nst = self.r.randint(1, 3)
        for i in range(nst):
            shape = target.val.shape
            e = self.expr(shape, 2)
            if not self.assignable(e, target):
                continue
            if i == nst - 1 or self.r.random() < 0.5:
                op = "=" if self.r.random() < 0.6 else "+="
                self.emit(f"{target.name} {op} {e.text}")
                old = target.val
                nb = e.bound if op == "=" else old.bound + e.bound
                ne = e.err if op == "=" else old.err + e.err + opunit(old.elem) * nb
                if old.elem in HALF_MAX and nb > 1000.0:
                    self.body.pop()
                    continue
                target.val = Val(target.name, old.elem, shape, nb, ne)
            else:
                self.declare(e, True)
        body = self.body
        result = target.val
        self.vars, self.body, self.indent, self.in_fn = saved
        self.fns.append(f"fn {name}({', '.join(pnames)}) {{\n" + "\n".join(body) + "\n}\n")
        return name, result

    def _stmt_fn_call(self, depth):
        """A fn that changes a tile variable of the caller (by reference)."""
        vs = [v for v in self.vars if v.mutable and v.val.shape and v.val.elem == "f32"]
        if not vs:
            return self._stmt_let(depth)
        var = self.r.choice(vs)
        args = [var.val]
        argtexts = [var.name]
        for _ in range(self.r.randint(0, 2)):
            e = self.expr(var.val.shape, 1) if self.r.random() < 0.7 else self.literal()
            if e.elem != "lit" and e.shape != var.val.shape:
                continue
            if e.elem == "lit":
                e = Val(e.text, "f32", var.val.shape, e.bound, 0.0)  # a literal argument
            args.append(e)
            argtexts.append(e.text)
        name, res = self.make_fn([Val(var.name, var.val.elem, var.val.shape, var.val.bound, var.val.err, var.val.intlike)] + args[1:])
        self.emit(f"{name}({', '.join(argtexts)})")
        var.val = Val(var.name, var.val.elem, var.val.shape, res.bound, res.err)
        self.features.add("fn-by-reference")

    def _stmt_fn_tensor(self, depth):
        """A fn bound to a slice of a tensor: assigning the parameter writes the tensor."""
        shape = (self.rowdim(), self.coldim())
        elem = self.r.choice(["f32", self.half])
        rs = self.rowstart()
        if self.grid_y:
            self.uses_y = True
            t = self.tensor(elem, ["H", "M", shape[1].text], "rw")
            first = Val(f"{t.name}[ctx.block.y, {rs} :+ BR, :]", elem, shape, 1.0, 0.0)
        else:
            t = self.tensor(elem, ["M", shape[1].text], "rw")
            first = Val(f"{t.name}[{rs} :+ BR, :]", elem, shape, 1.0, 0.0)
        t.read = t.written = True
        other = self.expr(shape, 1)
        name, res = self.make_fn([first, other])
        self.emit(f"{name}({first.text}, {other.text})")
        self.record_out(t.name, res, elem)
        self.features.add("fn-tensor-slice")

    def _stmt_attention(self, depth):
        """std's attention (online softmax over K): fns, loops, dot_t and dot, rowmax, exp."""
        d = self.const("D")
        qe = self.half if self.r.random() < 0.7 else "f32"
        ke = qe
        q = self.load((self.rowdim(), d), qe)
        kt = self.tensor(ke, ["K", "D"], "read")
        vt = self.tensor(ke, ["K", "D"], "read")
        kt.read = vt.read = True
        acc = self.fresh("att")
        self.emit(f"var {acc}: tile<f32>[BR, D] = 0.0")
        self.emit(f"attention({acc}, {q.text}, {kt.name}, {vt.name}, {fmt(self.r.choice([0.125, 0.25, 0.5]))}, BR, BC)")
        self.used_consts.update(["BC"])
        # Softmax weights sum to 1, so the result is bounded by the values; the error grows with
        # the 16-bit rounding of the probabilities under @tensorcore and the key count.
        u = UNIT[self.half] if (self.tensorcore or qe != "f32") else 4 * FN_ULP
        err = u * (4 + 2 * math.sqrt(self.K))
        v = Var(acc, Val(acc, "f32", (self.rowdim(), d), 1.0, err), True)
        self.vars.append(v)
        self.features.add("std-attention")
        if self.r.random() < 0.7:
            self.store(Val(acc, "f32", v.val.shape, 1.0, err))

    # ---------------------------------------------------------------- the kernel
    def generate_gemm(self):
        """A GEMM-shaped @tensorcore kernel: one K loop of `acc += dot(A[...], B[...])` (or
        dot_t) with both operands loaded straight from global memory, an elementwise epilogue,
        one store; a CTA per BM x BN block (grid along x and y). On sm_90a this is the shape the
        wgmma policy takes (docs/tilegpu.md: 128 or 256 threads, BM a multiple of 16 per warp,
        BN <= 256, BK a multiple of 16, 32/64/128-byte operand rows); the other choices keep it
        on mma.sync, so both run."""
        r = self.r2
        h = self.half
        launch = r.choice([128, 128, 256, 64])
        BM = r.choice([64, 128]) if launch != 256 else r.choice([128, 128, 64])
        BN = r.choice([16, 32, 64, 64, 128])
        BK = r.choice([16, 32, 32, 64])
        trans = r.random() < 0.3
        aligned = r.random() < 0.4
        if aligned:
            M, N, K = BM * r.randint(1, 2), BN * r.randint(1, 3), BK * r.randint(1, 4)
        else:
            M, N, K = r.randint(1, 2 * BM + 17), r.randint(1, 2 * BN + 9), r.randint(1, 3 * BK + 9)
        self.features.update(["gemm", "tensorcore", f"launch-{launch}", f"half-{h}", "dot_t" if trans else "dot"])
        params = [f"A: tensor<{h}>[M, K]", f"B: tensor<{h}>[N, K]" if trans else f"B: tensor<{h}>[K, N]"]
        bop = "B[col :+ BN, k :+ BK]" if trans else "B[k :+ BK, col :+ BN]"
        body = ["  let row = ctx.block.x * BM", "  let col = ctx.block.y * BN",
                "  var acc: tile<f32>[BM, BN] = 0.0", "  for k in range(0, K, BK) {",
                f"    acc += {'dot_t' if trans else 'dot'}(A[row :+ BM, k :+ BK], {bop})", "  }"]
        # Bounds: inputs in [-1, 1] (ph's seeded inputs; the CPU runs' are within it too), products
        # exact in f32, the f32 accumulation's order differs (docs/reliability.md, "The bound").
        u = UNIT["f32"]
        T = max(1, math.ceil(K / BK))
        bound = float(K)
        err = T * BK * (u * BK + 2 * u) + u * bound * T
        e = Val("acc", "f32", (), bound, err)
        args = {}
        for step in r.sample(["bias", "scale", "relu", "resid", "sig"], r.randint(0, 3)):
            if step == "bias":
                params.append(f"Bias: tensor<{h}>[1, N]")
                e = Val(f"{e.text} + Bias[0 :+ 1, col :+ BN]", "f32", (), e.bound + 1, e.err + u * (e.bound + 1), False, 2)
            elif step == "scale":
                params.append("s: f32")
                args["s"] = r.choice([0.5, -0.75, 1.25])
                e = Val(f"{self.paren(e, 1)} * s", "f32", (), e.bound * 1.25, e.err * 1.25 + u * e.bound * 1.25, False, 1)
            elif step == "relu":
                e = Val(f"tmax({e.text}, 0.0)", "f32", (), e.bound, e.err)
            elif step == "resid":
                params.append(f"R: tensor<{h}>[M, N]")
                e = Val(f"{self.paren(e, 2)} - R[row :+ BM, col :+ BN]", "f32", (), e.bound + 1, e.err + u * (e.bound + 1), False, 2)
            elif step == "sig" and "fns2" in CAPS:
                e = Val(f"sigmoid({e.text})", "f32", (), 1.0, 0.25 * e.err + FN_ULP)
            self.features.add("gemm-" + step)
        oelem = r.choice([h, h, "f32"])
        params.append(f"O: tensor<{oelem}>[M, N]")
        body.append(f"  O[row :+ BM, col :+ BN] = {e.text}")
        decos = ["@tensorcore"] + ([f"@launch({launch})"] if launch != 128 else []) + \
            [f"@autotune(BM in [{BM}], BN in [{BN}], BK in [{BK}])"]
        if aligned:
            decos.append("@aligned(M = BM, N = BN, K = BK)")
            self.features.add("aligned")
        kname = f"k{self.seed}"
        text = "\n".join(decos) + f"\nkernel {kname}({', '.join(params)}) {{\n" + "\n".join(body) + "\n}\n"
        inputs = {"A": {"dtype": h, "dims": ["M", "K"]}, "B": {"dtype": h, "dims": ["N", "K"] if trans else ["K", "N"]}}
        if "Bias" in text:
            inputs["Bias"] = {"dtype": h, "dims": ["1", "N"]}
        if "R[" in text:
            inputs["R"] = {"dtype": h, "dims": ["M", "N"]}
        self.out_tol, self.out_bound, self.out_abs, self.out_rel = {}, {}, {}, {}
        self.record_out("O", e, oelem)
        outputs = {"O": {"dtype": oelem, "dims": ["M", "N"], "tol": self.out_tol["O"], "bound": self.out_bound["O"],
                         "abs": self.out_abs["O"], "rel": self.out_rel["O"]}}
        return Case(self.seed, text, kname, {"M": M, "N": N, "K": K}, args, [{"BM": BM, "BN": BN, "BK": BK}],
                    inputs, outputs, sorted(self.features))

    def generate(self):
        r = self.r
        if "gemm" in CAPS and self.r2.random() < 0.15:
            return self.generate_gemm()
        self.body = []
        self.indent = 1
        self.vars = []
        self.out_tol = {}
        self.out_bound = {}
        self.out_abs = {}
        self.out_rel = {}
        if r.random() < 0.5:
            self.scalars.append(("s", Val("s", "f32", (), 1.5, 0.0)))
            self.args["s"] = r.choice([0.5, 1.5, -0.75, 1.25])
        self.emit(f"let row = ctx.block.x * BR")
        n = r.randint(2, 7)
        while self.nstmt < n + 1:
            self.statement(2)
        # Most values should reach an output: store a few of the tiles still in scope.
        live = [v for v in self.vars if v.val.shape]
        for v in r.sample(live, min(len(live), r.randint(0, 2))):
            self.store(Val(v.name, v.val.elem, v.val.shape, v.val.bound, v.val.err, v.val.intlike))
        if not self.out_tol:
            v = self.expr((self.rowdim(), self.coldim()), 2)
            self.store(v)
        # Keep the kernel's outputs in play: every output-only tensor is stored at least once.
        return self.render()

    def render(self):
        params = []
        for n in self.order:
            t = self.tensors[n]
            if not (t.read or t.written):
                continue
            params.append(f"{t.name}: tensor<{t.elem}>[{', '.join(t.dims)}]")
        for n, v in self.scalars:
            params.append(f"{n}: {v.elem}")
        decos = []
        if self.tensorcore:
            decos.append("@tensorcore")
            self.features.add("tensorcore")
        decos.append(f"@launch({self.launch})")
        auto = []
        # BR and BC are always used (the row block and most loops); D only when it appears.
        used = set(self.used_consts) | {"BR"}
        src = "\n".join(self.body) + "\n".join(self.fns)
        for c in ("BR", "BC", "D"):
            if c in used and (c in src or any(c in t.dims for t in self.tensors.values())):
                if c == "BR" and self.two_configs:
                    auto.append(f"BR in [{self.BR}, {self.br_alt}]")
                else:
                    auto.append(f"{c} in [{getattr(self, c)}]")
        decos.append(f"@autotune({', '.join(auto)})")
        if self.aligned:
            decos.append("@aligned(M = BR)")
            self.features.add("aligned")
        if self.explicit_grid:
            # The grid written out, as inference would give it (ceil(M / BR) x H).
            decos.append(f"@grid(M / BR, {'H' if self.uses_y else 1}, 1)")
            self.features.add("grid-explicit")
        kname = f"k{self.seed}"
        text = "".join(f + "\n" for f in self.fns)
        text += "\n".join(decos) + "\n"
        text += f"kernel {kname}({', '.join(params)}) {{\n" + "\n".join(self.body) + "\n}\n"
        sizes = {"M": self.M}
        alltext = text
        if any("K" in t.dims for t in self.tensors.values()) or "K" in alltext:
            sizes["K"] = self.K
        if self.uses_y:
            sizes["H"] = self.H
        configs = [{"BR": self.BR}]
        if self.two_configs:
            configs.append({"BR": self.br_alt})
        inputs, outputs = {}, {}
        for n in self.order:
            t = self.tensors[n]
            if t.read:
                inputs[n] = {"dtype": t.elem, "dims": t.dims}
            if t.written:
                outputs[n] = {"dtype": t.elem, "dims": t.dims, "tol": self.out_tol.get(n, 0.0),
                              "bound": self.out_bound.get(n, 0.0), "abs": self.out_abs.get(n, 0.0),
                              "rel": self.out_rel.get(n, 0.0)}
        self.features.add(f"launch-{self.launch}")
        self.features.add(f"half-{self.half}")
        return Case(self.seed, text, kname, sizes, dict(self.args), configs, inputs, outputs,
                    sorted(self.features))


# What the checker in use accepts beyond the base language (the runner probes `ph`, see
# difftest.probe_caps): "int-tiles" (i32 tile arithmetic stays i32), "fns2" (tanh, sigmoid, erf,
# sin, cos, log2, floor), "where" (comparisons, && || !, where), "ids" (row_ids, col_ids),
# "gemm" (GEMM-shaped @tensorcore kernels, Gen.generate_gemm; a generator choice, not a probe).
CAPS = frozenset()


def generate(seed, caps=frozenset()):
    global INT_TILES, CAPS
    if caps is True or caps is False:  # the older boolean form: integer tiles or not
        caps = frozenset(["int-tiles"]) if caps else frozenset()
    CAPS = frozenset(caps)
    INT_TILES = "int-tiles" in CAPS
    c = Gen(seed).generate()
    c.features.extend("cap-" + x for x in sorted(CAPS))
    return c


if __name__ == "__main__":
    c = generate(int(sys.argv[1]))
    print(c.source)
    print(c.to_json())
