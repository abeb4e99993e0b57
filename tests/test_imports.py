"""The shape of the code: the runtime apart from training, and no import circles.

What `masta watch` and `masta serve` load must never pull in training code (nor torch or
ultralytics): a table's laptop needs neither, and a circle between the two let either one's
change break the other. Training (`training/`) imports the runtime, never the other way
round; the verbs that train or tune import it inside the verb. The circle check reads every
import the project's modules make, at the top or inside a function, from the source (ast).
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("masta", "referee", "vision", "web", "datasets", "training")
RUNTIME = ("masta", "referee", "vision", "web")
TRAINING = ("training", "torch", "torchvision", "ultralytics")


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    out = {}
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


def imports_of(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(module imported, line, inside a function or class) for each import in `path`,
    relative imports resolved; a `from x import y` names `x.y` when that is a module."""
    tree = ast.parse(path.read_text(), str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.ClassDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, nested) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package[:len(package) - (child.level - 1)]
                    base = ".".join(up + ([child.module] if child.module else []))
                found.append((base, child.lineno, nested))
                found.extend((f"{base}.{a.name}", child.lineno, nested) for a in child.names)
            visit(child, inner)

    visit(tree, False)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Which project modules each project module imports (at any depth in its code)."""
    mods = project_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        targets = set()
        for imported, _, _ in imports_of(name, path):
            t = imported
            while t and t not in mods:
                t = t.rpartition(".")[0]
            if t and t != name:
                targets.add(t)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_no_module_imports_itself_in_a_circle():
    found = cycles(import_graph())
    graph = import_graph()
    said = ["; ".join(f"{m} -> {', '.join(sorted(graph[m] & set(c)))}" for m in c) for c in found]
    assert not found, "import circles:\n" + "\n".join(said)


def test_the_circle_finder_finds_circles(tmp_path):
    """The check above can fail: a made-up package with a circle through a lazy import."""
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "vision" / "a.py").write_text("from vision import b\n")
    (tmp_path / "vision" / "b.py").write_text("def f():\n    from .c import g\n")
    (tmp_path / "vision" / "c.py").write_text("import vision.a\n")
    (tmp_path / "vision" / "d.py").write_text("from vision.a import x\n")
    assert cycles(import_graph(tmp_path)) == [["vision.a", "vision.b", "vision.c"]]


def test_the_runtime_never_imports_training_code():
    """No runtime module names training code, not even inside a function; the verb modules
    (`commands.py`, `*_commands.py`) may, inside the verb, when asked to train or tune."""
    bad = []
    for name, path in project_modules().items():
        if name.split(".")[0] not in RUNTIME:
            continue
        verbs = path.name == "commands.py" or path.name.endswith("_commands.py")
        for imported, line, nested in imports_of(name, path):
            if imported.split(".")[0] in TRAINING and not (verbs and nested):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert not bad, "\n".join(bad)


FRESH = """
import importlib, json, pkgutil, sys
from masta.cli import build_parser
build_parser()  # every verb's module, as `masta watch` and `masta serve` load them
for pkg in {runtime!r}:
    for info in pkgutil.walk_packages(importlib.import_module(pkg).__path__, pkg + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
print(json.dumps(sorted(sys.modules)))
"""


def test_loading_the_whole_runtime_loads_no_training_code():
    run = subprocess.run([sys.executable, "-c", FRESH.format(runtime=RUNTIME)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert "web.app" in loaded and "vision.pot_watcher" in loaded and "vision.deck_memory" in loaded
    assert [m for m in loaded if m.split(".")[0] in TRAINING] == []


@pytest.mark.parametrize("verb", ["watch", "serve", "learn-deck"])
def test_a_runtime_verbs_help_loads_no_training_code(verb):
    code = (f"import json, sys\nfrom masta.cli import main\ntry:\n    main([{verb!r}, '--help'])\n"
            "except SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert [m for m in loaded if m.split(".")[0] in TRAINING] == []


def test_the_recipes_scripts_name_modules_that_exist():
    """A recipe run on a lent GPU has minutes: a module it names that moved (training code
    left `vision/`) must fail here, not there."""
    import re
    mods = project_modules()
    named = []
    for script in sorted((ROOT / "datasets" / "recipes").glob("*.sh")):
        text = script.read_text()
        named += [(script.name, m) for m in re.findall(r"-m\s+([A-Za-z_][\w.]*)", text)]
        named += [(script.name, m.strip()) for line in re.findall(r"-c \"import ([^;\"]+)", text)
                  for m in line.split(",")]
    assert named, "the recipes name no module: the check would pass on anything"
    missing = [f"{s} names {m}" for s, m in named if m.split(".")[0] in PACKAGES and m not in mods]
    assert not missing, "\n".join(missing)


def test_the_benchmark_scripts_import_modules_that_exist():
    """`bench/` is not a package the circle check reads, and a benchmark is run seldom: a module
    of the project it imports that moved must fail here."""
    mods = project_modules()
    missing = []
    for script in sorted((ROOT / "bench").glob("*.py")):
        for imported, line, _ in imports_of(f"bench.{script.stem}", script):
            top = imported.split(".")[0]
            if top in PACKAGES and imported not in mods and imported.rpartition(".")[0] not in mods:
                missing.append(f"bench/{script.name}:{line} imports {imported}")
    assert not missing, "\n".join(missing)
