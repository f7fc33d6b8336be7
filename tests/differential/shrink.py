#!/usr/bin/python3
"""Shrinking a failing case (issue 17): delta debugging over statements and sizes.

    shrink.py --ph build/bin/ph SEED [--targets cpu] [--build] [--save-dir tests/differential/cases]

A candidate is kept when it still passes `ph check` (except when the failure being shrunk is a
`ph check` failure) and fails the same way: the same status (mismatch, crash, build, interp,
check), on the same target, and for a mismatch a gross one (beyond 10x the output's bound: a
removed statement can let a value grow past what the generator's bound assumed, and a shrunk
case must not end on rounding). Passes, repeated until nothing changes:

1. remove chunks of lines (halving: ddmin), never the `kernel` line;
2. unwrap a `for` or `fn` block (drop its first and last lines), and replace an `if` by each of
   its branches (unwrapped), or drop its `else` part;
3. reduce each size: to 1, to half, minus one; and each autotune value to 8 or 16;
4. drop parameters the program no longer names (and their inputs and outputs);
5. simplify inside expressions (phexpr.py): replace an operation, a call or parentheses by one
   of its operands, a call or operation by the literal 1.0, an index offset by 0, in each line
   (`exp((X[row + 3 :+ BR, :] + 0.5) * v)` becomes `X[row :+ BR, :]` a step at a time).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import phexpr  # noqa: E402
import phgen  # noqa: E402


def signature(res):
    """What must stay the same while shrinking."""
    d = res.detail
    if res.status == "check":
        m = re.search(r"error\[(E\d+)\]: ([^\n]*)", d)
        return ("check", m.group(1), m.group(2)) if m else ("check",)
    m = re.match(r"\[[^\]]*\] (\w+):", d)
    target = m.group(1) if m else ""
    if res.status == "crash":
        m2 = re.search(r"exit (-?\d+)", d)
        return ("crash", target, m2.group(1) if m2 else "")
    if res.status == "build":
        m2 = re.search(r"(error[^\n]{0,40})", d)
        return ("build",)
    return (res.status, target)


def gross(case, res):
    """A mismatch far past the bound (or a NaN / shape difference), not a rounding effect."""
    d = res.detail
    if "NaN" in d or "shape" in d:
        return True
    m = re.search(r"(\w+): \d+ of \d+ elements beyond ([0-9.e+-]+); max diff ([0-9.e+-]+|inf|nan)", d)
    if not m:
        return "differ" in d  # i32: exact
    tol, diff = float(m.group(2)), float(m.group(3))
    return diff > 10 * tol + 1e-3 * case.outputs.get(m.group(1), {}).get("bound", 0.0)


def drop_unused_autotune(src):
    """Remove `@autotune` entries nothing else names (E0404 otherwise)."""
    m = re.search(r"@autotune\((.*)\)\n", src)
    if not m:
        return src
    rest = src[:m.start()] + src[m.end():]
    items = [it.strip() for it in re.split(r",\s*(?=\w+ in )", m.group(1))]
    keep = [it for it in items if re.search(r"\b%s\b" % it.split()[0], rest)]
    return src[:m.start()] + f"@autotune({', '.join(keep)})\n" + src[m.end():]


class Shrinker:
    def __init__(self, args, case, res):
        self.args = args
        self.case = case
        self.sig = signature(res)
        self.status = res.status
        self.tries = 0
        self.best_res = res

    def fails(self, case):
        self.tries += 1
        folder = tempfile.mkdtemp(prefix="ph-shrink-")
        try:
            res = difftest.run_case(self.args.ph, case, self.args.targets, self.args.build, folder)
        except Exception as e:  # a timeout is a failure of its own kind
            return False
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if res.status != self.status or signature(res) != self.sig:
            return False
        if res.status == "mismatch" and not gross(case, res):
            return False
        self.best_res = res
        return True

    def with_source(self, lines):
        c = phgen.Case(**dict(self.case.__dict__))
        c.source = "\n".join(lines) + "\n"
        return c

    def lines(self):
        return self.case.source.rstrip("\n").split("\n")

    def removable(self, i, lines):
        s = lines[i].strip()
        # Blocks go whole (pass_unwrap, or a chunk holding both ends), so braces stay balanced.
        if s.startswith("kernel ") or s.startswith("@autotune") or s == "":
            return False
        return True

    def balanced(self, lines):
        return sum(l.count("{") - l.count("}") for l in lines) == 0

    def pass_chunks(self):
        changed = False
        lines = self.lines()
        n = max(1, len(lines) // 2)
        while n >= 1:
            i = 0
            while i < len(lines):
                idx = [j for j in range(i, min(i + n, len(lines))) if self.removable(j, lines)]
                cand = [l for j, l in enumerate(lines) if j not in idx]
                if idx and self.balanced(cand):
                    c = self.with_source(cand)
                    if self.fails(c):
                        self.case, lines, changed = c, cand, True
                        continue
                i += n
            n //= 2
        return changed

    def pass_unwrap(self):
        changed = False
        lines = self.lines()
        i = 0
        while i < len(lines):
            s = lines[i].strip()
            if s.endswith("{") and s.startswith("if "):
                for cand in self.if_candidates(lines, i):
                    c = self.with_source(cand)
                    if self.fails(c):
                        self.case, lines, changed = c, cand, True
                        break
                else:
                    i += 1
                continue
            if s.endswith("{") and (s.startswith("for ") or s.startswith("fn ")):
                depth, j = 0, i
                for j in range(i, len(lines)):
                    depth += lines[j].count("{") - lines[j].count("}")
                    if depth == 0:
                        break
                cand = lines[:i] + [l[2:] if l.startswith("  ") else l for l in lines[i + 1:j]] + lines[j + 1:]
                c = self.with_source(cand)
                if self.fails(c):
                    self.case, lines, changed = c, cand, True
                    continue
            i += 1
        return changed

    def if_candidates(self, lines, i):
        """An `if` at line i replaced by each of its branches, unwrapped (the `if` and
        `} else ... {` lines dropped), then by the `if` without its `else` part."""
        depth, arms, start = 0, [], i + 1
        for j in range(i, len(lines)):
            s = lines[j].strip()
            if j > i and depth == 1 and s.startswith("}") and s.endswith("{"):
                arms.append((start, j))
                start = j + 1
            depth += lines[j].count("{") - lines[j].count("}")
            if depth == 0:
                arms.append((start, j))
                break
        else:
            return []
        out = []
        for a, b in arms:
            out.append(lines[:i] + [l[2:] if l.startswith("  ") else l for l in lines[a:b]] + lines[j + 1:])
        if len(arms) > 1:
            ind = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            out.append(lines[:arms[0][1]] + [ind + "}"] + lines[j + 1:])
        return out

    def pass_sizes(self):
        changed = False
        for k in sorted(self.case.sizes):
            while True:
                v = self.case.sizes[k]
                for nv in sorted({1, v // 2, v - 1}):
                    if 1 <= nv < v:
                        c = phgen.Case(**dict(self.case.__dict__))
                        c.sizes = dict(self.case.sizes, **{k: nv})
                        if self.fails(c):
                            self.case, changed = c, True
                            break
                else:
                    break
        # Autotune values: smaller tiles.
        for m in re.finditer(r"\b(BR|BC|D) in \[(\d+)\]", self.case.source):
            name, v = m.group(1), int(m.group(2))
            for nv in (8, 16):
                if nv < v:
                    c = phgen.Case(**dict(self.case.__dict__))
                    c.source = self.case.source.replace(f"{name} in [{v}]", f"{name} in [{nv}]")
                    c.configs = [dict(cf, **({name: nv} if name in cf else {})) for cf in self.case.configs]
                    if self.fails(c):
                        self.case, changed = c, True
                        break
        return changed

    def pass_params(self):
        """Drop tensor parameters the body no longer names."""
        src = self.case.source
        m = re.search(r"kernel (\w+)\((.*)\) \{", src)
        if not m:
            return False
        params = [p.strip() for p in re.split(r",\s*(?=\w+:)", m.group(2)) if p.strip()]
        body = src[m.end():]
        fns = src[:m.start()]
        keep = [p for p in params if re.search(r"\b%s\b" % re.escape(p.split(":")[0]), body + fns)]
        if len(keep) == len(params):
            return False
        c = phgen.Case(**dict(self.case.__dict__))
        c.source = drop_unused_autotune(src[:m.start()] + f"kernel {m.group(1)}({', '.join(keep)}) {{" + body)
        names = {p.split(":")[0] for p in keep}
        c.inputs = {k: v for k, v in c.inputs.items() if k in names}
        c.outputs = {k: v for k, v in c.outputs.items() if k in names}
        c.args = {k: v for k, v in c.args.items() if k in names}
        if self.fails(c):
            self.case = c
            return True
        return False

    def pass_exprs(self, budget=400):
        """One step at a time inside each line's expressions, while a step keeps the failure."""
        changed = False
        lines = self.lines()
        start = self.tries
        for i in range(len(lines)):
            progress = True
            while progress and self.tries - start < budget:
                progress = False
                for cand_line in phexpr.line_candidates(lines[i]):
                    cand = lines[:i] + [cand_line] + lines[i + 1:]
                    c = self.with_source(cand)
                    if self.fails(c):
                        self.case, lines, changed, progress = c, cand, True, True
                        break
                    if self.tries - start >= budget:
                        break
        return changed

    def run(self):
        for _ in range(6):
            changed = self.pass_chunks()
            changed |= self.pass_unwrap()
            changed |= self.pass_sizes()
            changed |= self.pass_params()
            changed |= self.pass_exprs()
            changed |= self.pass_params()
            if not changed:
                break
        return self.case, self.best_res


def shrink(args, case, res):
    s = Shrinker(args, case, res)
    small, sres = s.run()
    print(f"shrink: seed {case.seed}: {len(case.source.splitlines())} -> {len(small.source.splitlines())} lines, "
          f"sizes {case.sizes} -> {small.sizes}, {s.tries} tries", flush=True)
    return small, sres


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ph", required=True)
    ap.add_argument("seed", type=int)
    ap.add_argument("--targets", default="cpu")
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--save-dir")
    args = ap.parse_args()
    args.targets = [t for t in args.targets.split(",") if t]
    case = phgen.generate(args.seed, difftest.probe_caps(args.ph))
    folder = tempfile.mkdtemp(prefix="ph-shrink-")
    res = difftest.run_case(args.ph, case, args.targets, args.build, folder)
    shutil.rmtree(folder, ignore_errors=True)
    if res.status == "ok":
        print(f"seed {args.seed} passes: nothing to shrink")
        return 0
    print(f"seed {args.seed}: {res.status}: {res.detail.splitlines()[0]}")
    small, sres = shrink(args, case, res)
    print(small.source)
    print(f"{sres.status}: {sres.detail}")
    if args.save_dir:
        print("saved", difftest.save_case(small, sres, args.save_dir, f"seed{args.seed}-{sres.status}", "fails"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
