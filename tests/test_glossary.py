"""The course speaks one vocabulary: no notebook or docstring uses a variant that course/GLOSSARY.md rules out.

The variants come from GLOSSARY.md's table "Variants the course does not use" (first column, several
separated by commas; a parenthesis such as "(for the algorithm)" is a note, not part of the word).
Every lesson, exercise and solution notebook (markdown and code cells), every handout, the two READMEs,
NOTATION.md and every docstring of ``lessonlib`` is searched; a hit names the file, the cell (or the object), the variant, the term to write instead and
the text around it. Two quotations are exempt: a source's own title in 《…》 (the bibliography cites,
for instance, an article whose title says 递归), and a word named as a word in 「…」 ("the sources
write 「递归」; the course writes 递推") — a mention, not a use.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GLOSSARY = REPO / "course" / "GLOSSARY.md"
NOTEBOOKS = (sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb")) + sorted((REPO / "exercises").glob("*.ipynb"))
             + sorted((REPO / "solutions").glob("*.ipynb")) + sorted((REPO / "course" / "zh").glob("*.ipynb"))
             + sorted((REPO / "exercises" / "zh").glob("*.ipynb")))
TEXTS = (sorted((REPO / "course" / "handouts").glob("*.md")) + sorted((REPO / "course" / "zh" / "handouts").glob("*.md"))
         + [REPO / "README.zh.md"]
         + [REPO / "README.md", REPO / "course" / "README.md", REPO / "course" / "NOTATION.md"])
TABLE_TITLE = "## Variants the course does not use"
_QUOTED = re.compile(r"《[^》]*》|「[^」]*」")


def variants(text=None):
    """``{variant: (write instead, why)}`` from the glossary's table of variants."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    if TABLE_TITLE not in text:
        raise ValueError(f"GLOSSARY.md: no section {TABLE_TITLE!r}")
    section = text.split(TABLE_TITLE, 1)[1].split("\n## ", 1)[0]
    found = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.search(r"[\u4e00-\u9fff]", cells[0]):
            continue                                            # header, rule or prose
        for word in re.sub(r"\([^)]*\)", "", cells[0]).split(","):
            if word.strip():
                found[word.strip()] = (cells[1], cells[2] if len(cells) > 2 else "")
    return found


def hits(text, table):
    """``[(variant, write instead, context)]`` for every use of a ruled-out variant in ``text``."""
    text = _QUOTED.sub(lambda m: " " * len(m.group()), text)
    out = []
    for word, (instead, _) in table.items():
        for m in re.finditer(re.escape(word), text):
            context = text[max(0, m.start() - 25):m.end() + 25].replace("\n", " ")
            out.append((word, instead, context))
    return out


def notebook_hits(path, table):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for index, cell in enumerate(cells):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        found += [f"{path.parent.name}/{path.name} cell {index} ({cell['cell_type']}): {w!r} → write {i!r}: …{c}…"
                  for w, i, c in hits(source, table)]
    return found


def docstring_hits(root, table):
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                name = getattr(node, "name", "module docstring")
                found += [f"{path.relative_to(REPO)} ({name}): {w!r} → write {i!r}: …{c}…"
                          for w, i, c in hits(doc or "", table)]
    return found


def test_the_glossary_lists_the_known_variants():
    table = variants()
    for word, instead in (("交叉验证", "交叉检查"), ("牛顿运动定理", "牛顿运动定律"), ("递归", "递推"),
                          ("空间惯性", "空间惯量"), ("运动转化向量", "速度转化向量"), ("速度传递向量", "速度转化向量")):
        assert table[word][0] == instead, (word, table.get(word))


def test_the_check_finds_a_variant_and_spares_a_quoted_title():
    table = variants("## Variants the course does not use\n\n| instead of | write | why |\n|---|---|---|\n"
                     "| 递归 (for the algorithm) | 递推 | one word |\n| 交叉验证, 验证集 | 交叉检查 | ML |\n")
    assert set(table) == {"递归", "交叉验证", "验证集"}
    assert [h[0] for h in hits("递归牛顿–欧拉算法与交叉验证", table)] == ["递归", "交叉验证"]
    assert hits("[RNE05] 《005｜递归Newton–Euler》 uses 递推", table) == []
    assert hits("the sources write 「递归」; we write 递推", table) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebook_uses_the_glossary_terms(path):
    found = notebook_hits(path, variants())
    assert not found, "variants GLOSSARY.md rules out:\n" + "\n".join(found)


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(REPO)))
def test_text_uses_the_glossary_terms(path):
    found = [f"{path.relative_to(REPO)}: {w!r} → write {i!r}: …{c}…" for w, i, c in hits(path.read_text(encoding="utf-8"),
                                                                                       variants())]
    assert not found, "variants GLOSSARY.md rules out:\n" + "\n".join(found)


def test_the_new_variants_are_listed():
    table = variants()
    for word, instead in (("惯性矩阵", "质量矩阵"), ("伴随映射", "伴随表示"), ("本体坐标系", "物体坐标系"),
                          ("回转椭球", "惯性椭球"), ("结构共振", "机械共振"), ("楚列斯基分解", "Cholesky 分解"),
                          ("粘滞", "黏性"), ("刚体偏置项", "偏置力"), ("前向递推", "正向递推"), ("反向递推", "逆向递推")):
        assert table[word][0].startswith(instead), (word, table.get(word))


def test_lessonlib_docstrings_use_the_glossary_terms():
    found = docstring_hits(REPO / "lessonlib", variants())
    assert not found, "variants GLOSSARY.md rules out:\n" + "\n".join(found)
