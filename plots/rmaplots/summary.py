"""The reader's summary of `jobs/figure.sh all` (rmaplot summary DIR): every catalogue entry redrawn
from its sweep's results (DIR/sweeps/NAME/results.csv) into DIR/ID/, then one page for a paper's
artifact appendix, DIR/report.md (per entry what was run: ranks, hosts, cores, oversubscribed or
not, runs per point, commit, MPI library, the machine states met; how it compares with the thesis;
its figure and tables) and DIR/figures.pdf (a page listing the entries, then every figure, one a
page)."""
import os
import textwrap

from matplotlib.backends.backend_pdf import PdfPages

from . import catalogue, data, figures, safeio, style


def _read(path):
    try:
        return safeio.read_text(path).decode("utf-8", "replace").strip()
    except (OSError, safeio.UnsafeFile):
        return ""


def _draw_all(outdir, pdf):
    """{id: Result or None} of every entry drawn from its sweep, each figure also a page of pdf."""
    got = {}
    hook = lambda fig, name: pdf.savefig(fig)  # noqa: E731
    style.BEFORE_SAVE.append(hook)
    try:
        for e in catalogue.ENTRIES:
            sweep = os.path.join(outdir, "sweeps", e.sweep.local_name)
            csv = os.path.join(sweep, "results.csv")
            try:
                rows = data.load([csv]) if os.path.isfile(csv) else []
            except data.DataError:
                rows = []
            if not rows:
                got[e.id] = None
                continue
            params = os.path.join(sweep, "params.txt")
            os.makedirs(os.path.join(outdir, e.id), exist_ok=True)
            got[e.id] = figures.draw(e.id, rows, os.path.join(outdir, e.id), params if os.path.isfile(params) else None)
    finally:
        style.BEFORE_SAVE.remove(hook)
    return got


def _cover(pdf, lines):
    """Pages of text (the entries and what was run) at the front of the PDF."""
    per_page = 60
    wrapped = [w for ln in lines for w in (textwrap.wrap(ln, 130, subsequent_indent="    ") or [""])]
    for i in range(0, len(wrapped), per_page):
        fig = style.plt.figure(figsize=(8.27, 11.69))
        fig.text(0.05, 0.97, "\n".join(wrapped[i:i + per_page]), fontsize=6.5, va="top", ha="left", family="monospace")
        pdf.savefig(fig)
        style.plt.close(fig)


def write(outdir):
    """Redraws every entry, writes DIR/report.md and DIR/figures.pdf; returns (report path, PDF path,
    entries without results)."""
    got = {}
    machine = _read(os.path.join(outdir, "machine.txt"))
    head = ["# Thesis figures and tables (jobs/figure.sh all)", ""] + ([machine, ""] if machine else []) + [
        f"Every line's point is the median of its runs ({data.RUNS_TEXT}); a configuration was repeated until the "
        f"95% CI of its mean lay within ±{100 * catalogue.WIDTH:.0f}% or it had {catalogue.CAP} runs. A hollow point "
        "ran more ranks than its host has cores; a shaded one met the machine's slower state (cache-line floor, "
        "window allocation regime): neither is compared with the thesis as scaling. How to read every mark: "
        "docs/figures.md. figures.pdf holds every figure, one a page.", ""]
    pdf_path = os.path.join(outdir, "figures.pdf")

    def fill(tmp):
        with PdfPages(tmp) as pdf:
            got.update(_draw_all(outdir, pdf))
            _cover(pdf, [ln for e in catalogue.ENTRIES for ln in
                         (f"{e.id} ({e.section}): {e.shows}",
                          f"    run: {got[e.id].run if got[e.id] else 'no results'}",
                          f"    against the thesis: {got[e.id].compare if got[e.id] else '-'}", "")])
    safeio.write_output(pdf_path, fill)
    table = ["| entry | thesis | what was run | seconds | against the thesis |", "|---|---|---|---|---|"]
    body = []
    for e in catalogue.ENTRIES:
        res = got.get(e.id)
        secs = _read(os.path.join(outdir, e.id, "seconds")) or "—"
        cell = lambda t: (t or "—").replace("|", "\\|")  # noqa: E731
        table.append(f"| [{e.id}]({e.id}/{e.id}.md) | {e.section} | {cell(res.run if res else 'no results')} | {secs} | "
                     f"{cell(res.compare if res else '')} |")
        if res is None:
            body += [f"## {e.id}: no results (see {os.path.join('sweeps', e.sweep.local_name)}/logs)", ""]
            continue
        body += [ln.replace("](", f"]({e.id}/") if ln.startswith("![") else ln for ln in res.markdown] + [""]
    path = os.path.join(outdir, "report.md")

    def fill_md(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(head + table + [""] + body) + "\n")
    safeio.write_output(path, fill_md)
    return path, pdf_path, sum(1 for v in got.values() if v is None)
