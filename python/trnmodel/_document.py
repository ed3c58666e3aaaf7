"""The document a report is built as: headings, paragraphs, lists, tables and figures, rendered
twice, to Markdown (figures as PNG files beside it) and to a self-contained HTML page."""

from __future__ import annotations

import base64
import io
import pathlib
from typing import Any, List, Optional, Sequence, Tuple

from ._format import STYLE, esc, html_table, inline_html, markdown_table


class Document:
    """Headings, paragraphs, lists, tables and figures, rendered to Markdown and to HTML.
    Text is plain (escaped in HTML); ``**bold**`` spans stay bold in both."""

    def __init__(self, title: str = "Budget sign-off") -> None:
        #: What the notebook card calls the document.
        self.title = title
        self.blocks: List[Tuple[str, Any]] = []
        #: The few lines that say it all (printed by the command line).
        self.summary: List[str] = []
        #: (scenario name, warning) pairs already said, so that a later section does not repeat them.
        self.said: set = set()

    def heading(self, text: str, level: int = 2) -> None:
        self.blocks.append(("heading", (level, text)))

    def paragraph(self, text: str) -> None:
        self.blocks.append(("paragraph", text))

    def bullets(self, items: Sequence[str]) -> None:
        self.blocks.append(("bullets", list(items)))

    def table(
        self, header: Sequence[str], rows: Sequence[Sequence[str]], html_cells: Optional[Sequence[Sequence[str]]] = None
    ) -> None:
        """``html_cells``, when given, replaces the rows in HTML (e.g. provenance badges)."""
        self.blocks.append(("table", (list(header), [list(r) for r in rows], html_cells)))

    def figure(self, name: str, figure: Any, caption: str) -> None:
        """A matplotlib figure, rendered once to PNG (its file name stem is ``name``). Drawn once:
        the plots lay themselves out (constrained layout, legends inside the figure), so no
        ``bbox_inches="tight"``, which would draw each figure a second time to measure it."""
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110)
        import matplotlib.pyplot as plt

        plt.close(figure)
        self.blocks.append(("figure", (name, buffer.getvalue(), caption)))

    # -- rendering ----------------------------------------------------------------------

    def markdown(self, figure_dir: Optional[pathlib.Path] = None, figure_link: str = "") -> str:
        """Markdown; figures are written to ``figure_dir`` and linked as ``figure_link/NAME.png``
        (left out when no directory is given)."""
        lines: List[str] = []
        for kind, content in self.blocks:
            if kind == "heading":
                level, text = content
                lines += ["#" * level + " " + text, ""]
            elif kind == "paragraph":
                lines += [content, ""]
            elif kind == "bullets":
                lines += [f"- {item}" for item in content] + [""]
            elif kind == "table":
                header, rows, _ = content
                lines += markdown_table(header, rows) + [""]
            elif kind == "figure" and figure_dir is not None:
                name, png, caption = content
                figure_dir.mkdir(parents=True, exist_ok=True)
                (figure_dir / f"{name}.png").write_bytes(png)
                lines += [f"![{caption}]({figure_link}/{name}.png)", "", f"*{caption}*", ""]
        return "\n".join(lines).rstrip() + "\n"

    def _repr_html_(self) -> str:
        figures = sum(1 for kind, _ in self.blocks if kind == "figure")
        if figures == 0:  # a page without figures (the decision page) is shown whole
            return f'{STYLE}<div class="tm">{"".join(self._body_html())}</div>'
        body = "".join(f"<li>{inline_html(line)}</li>" for line in self.summary)
        return (
            f'{STYLE}<div class="tm"><h3>{esc(self.title)}</h3><ul>{body}</ul>'
            f"<p>{len(self.blocks)} blocks, {figures} figures: write them with <code>tm.report(..., path=...)</code>"
            f"</p></div>"
        )

    def _body_html(self) -> List[str]:
        body: List[str] = []
        for kind, content in self.blocks:
            if kind == "heading":
                level, text = content
                body.append(f"<h{level}>{inline_html(text)}</h{level}>")
            elif kind == "paragraph":
                body.append(f"<p>{inline_html(content)}</p>")
            elif kind == "bullets":
                body.append("<ul>" + "".join(f"<li>{inline_html(i)}</li>" for i in content) + "</ul>")
            elif kind == "table":
                header, rows, html_cells = content
                cells = html_cells if html_cells is not None else [[inline_html(str(c)) for c in r] for r in rows]
                body.append(html_table(header, cells))
            elif kind == "figure":
                name, png, caption = content
                data = base64.b64encode(png).decode("ascii")
                body.append(
                    f'<figure id="{esc(name)}"><img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
                    f"<figcaption>{esc(caption)}</figcaption></figure>"
                )
        return body

    def html(self, title: str) -> str:
        """A self-contained HTML page: figures embedded as PNG data, no scripts, no external files."""
        body = self._body_html()
        page_style = STYLE.replace(
            "</style>",
            ".tm {margin: 24px auto; padding: 0 16px} .tm h1 {font-size: 22px}"
            " .tm h2 {font-size: 17px; margin-top: 22px; border-bottom: 1px solid #e0e0e0}"
            " .tm img {max-width: 100%; width: 760px} .tm figcaption {color: #616161; font-size: 12px}</style>",
        )
        return (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f'{page_style}</head><body><div class="tm">{"".join(body)}</div></body></html>\n'
        )


__all__ = ["Document"]
