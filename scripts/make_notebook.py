"""Writes a notebook from a list of (kind, source) cells, stored without outputs.
Usage from a generator script: write_notebook(path, cells)."""

import nbformat


def write_notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src) for kind, src in cells
    ]
    nbformat.write(nb, path)
