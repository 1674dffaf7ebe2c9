"""``descgen dump``'s verdict column counts warnings, and ``--unique`` lists each distinct word
once, as a user types them."""

from __future__ import annotations

from helpers import fails, ok

SWAPPED = "0x4000400100400000"  # LBO 1024 B, SBO 16 B: smem.lbo_sbo_swapped warns


def _log(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text(f"adesc = {SWAPPED}\nadesc = {SWAPPED}\nbdesc = 0x4000404000010040\n")
    return str(path)


def test_a_word_that_breaks_a_recommendation_is_not_called_valid(tmp_path):
    out = ok("dump", "--plain", "--table-only", _log(tmp_path))
    rows = out.splitlines()[2:5]
    assert rows[0] == ("     1  adesc           0x4000400100400000  high 0.99    1 warning           "
                       "smem swizzle 128B, start 0x0, LBO 1024 B, SBO 16 B")
    assert " valid " not in rows[0] and " valid " not in rows[1]
    assert "  valid  " in rows[2]
    # the same warning lint and check give the word
    assert "smem.lbo_sbo_swapped" in ok("check", SWAPPED, "--as", "smem", "--plain")


def test_unique_lists_each_distinct_word_once_with_its_count_and_first_line(tmp_path):
    path = _log(tmp_path)
    out = ok("dump", "--unique", "--plain", path)
    assert out.splitlines() == [
        f"distinct descriptor words in {path}, in the order first found:",
        " count  first line  value               confidence   verdict             reading",
        "    2x  1 (adesc)   0x4000400100400000  high 0.99    1 warning           smem swizzle "
        "128B, start 0x0, LBO 1024 B, SBO 16 B",
        "    1x  3 (bdesc)   0x4000404000010040  high 0.99    valid               smem swizzle "
        "128B, start 0x400, LBO 16 B, SBO 1024 B",
        f"3 descriptor words found in {path}, 2 distinct",
    ]
    # the same counts as the index at the end of the full report
    assert out.splitlines()[-1] == ok("dump", "--plain", path).splitlines()[-1]


def test_unique_is_a_text_view(tmp_path):
    assert fails("dump", "--unique", "-f", "json", _log(tmp_path)).startswith(
        "descgen: error: --unique is a text view")
