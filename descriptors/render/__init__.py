"""Presentation: every way descgen shows a result to a person or a program.

The layers below return data (decoded words, findings, layouts, fragment maps, dump and lint
findings); this floor turns it into output, one module per kind of result:

* :mod:`.printer` -- a decoded word (rich table, bit diagram, plain text), findings, zero-column
  masks, data-path layouts, tcgen05.ld/st footprints, property tables, word diffs;
* :mod:`.layout` -- ``descgen layout``'s report, K-step tables and swizzle-atom pictures;
* :mod:`.explain` -- ``descgen explain``'s fragment maps;
* :mod:`.dump` -- ``descgen dump``'s streamed table and its JSON document (msgspec);
* :mod:`.lint` -- ``descgen lint``'s diagnostics;
* :mod:`.batch` -- ``descgen batch``'s table;
* :mod:`.console` -- the rich consoles the others print on, SVG pictures, the progress bar.

It is the only part of the package that imports rich, and it imports rich inside the
functions that draw with it: plain text and JSON never load it (``descgen idesc`` stays
light).  The package loads these modules only when asked (its front lends
:mod:`descriptors.render.printer` under the name ``printer``).
"""
