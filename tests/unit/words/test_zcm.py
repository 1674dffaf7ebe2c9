"""Zero-column masks: the PTX examples' masks bit for bit, synthesis and its round trip, the CLI."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import descriptors
from cli.main import app
from descriptors.words.zcm import (NoDescriptorError, conv_padding_mask, generate, mask_from_columns,
                             synthesise)


def b(text: str) -> int:
    """A PTX-style 0b literal as printed in 9.7.16.4.3 (MSB first, spaces ignored)."""
    return int(text.replace(" ", ""), 2)


def low(value: int, text: str) -> bool:
    """``value``'s low bits equal the PTX literal (the text shows the low end after '...')."""
    bits = text.replace(" ", "")
    return value & ((1 << len(bits)) - 1) == int(bits, 2)


# The four examples of PTX 9.7.16.4.3, field values from their tables.
EX1 = dict(start_count=[0, 0, 0, 0], first_span=[0, 0, 0, 0], non_zero_mask=0, skip_span=4,
           use_span=3, column_shift=0)
EX2 = dict(start_count=[0], first_span=[0], non_zero_mask=1, skip_span=2, use_span=3)
EX3 = dict(start_count=[0, 0], first_span=[1, 0], non_zero_mask=1, skip_span=2, use_span=3)
EX4 = dict(start_count=[0, 1, 2, 1], first_span=[1, 1, 0, 0], non_zero_mask=1, skip_span=2,
           use_span=3, column_shift=2)


def test_example_1_non_zero_mask_0_gives_all_zeros():
    z = generate(descriptors.encode("zcm", **EX1), 128, 128)
    assert z.mask == 0 and z.submasks == (0,)
    assert [z.b_column(j) for j in (0, 127)] == [0, 127]


def test_example_2():
    z = generate(descriptors.encode("zcm", **EX2), 128, 128)
    assert low(z.mask, "111 0000 111 0000")
    assert z.bits()[:14] == "00001110000111"  # column 0 first: four used, three zeroed
    assert z.mask.bit_count() == 3 * 18  # 128 = 18 periods of 7, then 2 used columns


def test_example_3():
    z = generate(descriptors.encode("zcm", **EX3), 64, 128)
    assert len(z.submasks) == 2 and z.width == 64
    assert low(z.submasks[0], "111 0000 111 0000 111")
    assert low(z.submasks[1], "0000 111 0000 111 0000")
    assert z.mask == z.submasks[0] | z.submasks[1] << 64


def test_example_4():
    z = generate(descriptors.encode("zcm", **EX4), 32, 128)
    assert low(z.submasks[0], "0000 111 0000 111")
    assert low(z.submasks[1], "0000 111 0000 11")
    assert low(z.submasks[2], "111 0000 111 00")
    assert low(z.submasks[3], "111 0000 111 000")
    # "If N = 128 then B Matrix with columns from 2 to 129 will be used": shift 2
    used = [z.b_column(j) for j in range(128) if z.b_column(j) is not None]
    assert min(used) >= 2 and max(used) <= 129
    assert z.b_column(3) == 5 and z.b_column(0) is None


def test_generate_refuses_bad_shapes():
    w = descriptors.encode("zcm", **EX2)
    with pytest.raises(descriptors.ParameterError, match="M = 32, 64, 128"):
        generate(w, 256, 128)
    with pytest.raises(descriptors.ParameterError, match="multiple of 4"):
        generate(w, 32, 30)


@pytest.mark.parametrize("fields, m", [(EX2, 128), (EX3, 64), (EX4, 32)])
def test_synthesise_reproduces_the_ptx_examples(fields, m):
    word = descriptors.encode("zcm", **fields)
    mask = generate(word, m, 128).mask
    again = synthesise(mask, m, 128, column_shift=fields.get("column_shift", 0))
    assert generate(again, m, 128).mask == mask
    d = descriptors.decode("zcm", again).fields
    assert (d["skip_span"], d["use_span"]) == (2, 3)


def test_synthesise_zero_mask_clears_non_zero_mask():
    assert descriptors.decode("zcm", synthesise(0, 128, 64)).fields["non_zero_mask"] == 0


def test_conv_padding_case():
    mask = conv_padding_mask(128, 20, 1, 1)
    assert [j for j in range(40) if mask >> j & 1] == [0, 19, 20, 39]
    word = synthesise(mask, 128, 128)
    assert word == 0x0011018100000001  # use 18 (raw 17), skip 2 (raw 1), fs0 1, sc0 1
    assert generate(word, 128, 128).mask == mask


def test_columns_input():
    assert mask_from_columns(16, ["0-2", 7, range(9, 11)]) == 0b11010000111
    with pytest.raises(descriptors.ParameterError, match="outside 0..15"):
        mask_from_columns(16, [16])


@pytest.mark.parametrize("mask, m, n, why", [
    (mask_from_columns(32, ["0-2", "7-9", "14-16"]), 128, 32, "not periodic"),
    (mask_from_columns(64, ["0-2", "6-8", "13-15"]), 128, 64, "different lengths"),
    (0b1, 32, 32, None),
])
def test_impossible_masks_are_explained(mask, m, n, why):
    if why is None:
        assert generate(synthesise(mask, m, n), m, n).mask == mask
    else:
        with pytest.raises(NoDescriptorError, match=why):
            synthesise(mask, m, n)


@pytest.mark.parametrize("call", [
    lambda: synthesise((1 << 300) - 1 << 1, 128, 512),
    lambda: generate(0, 64, 10**9),
    lambda: conv_padding_mask(10**6, 20, 1, 1),
    lambda: mask_from_columns(10**9, [1]),
])
def test_n_is_capped(call):
    """N is at most 256 for every MMA (Table 39): a huge N is refused at once, never looped
    over (issue 15: N=10**9 hung)."""
    with pytest.raises(descriptors.ParameterError, match=r"outside 1\.\.256"):
        call()


def test_shift_limit_for_m32():
    with pytest.raises(NoDescriptorError, match="at most 16"):
        synthesise(0b1, 32, 32, column_shift=17)
    assert descriptors.decode("zcm", synthesise(0b1, 64, 32, column_shift=17)).fields[
        "column_shift"] == 17


@settings(max_examples=300, deadline=None)
@given(m=st.sampled_from([32, 64, 128]), n=st.sampled_from([32, 64, 128, 256]),
       sc=st.lists(st.integers(0, 255), min_size=4, max_size=4),
       fs=st.lists(st.integers(0, 1), min_size=4, max_size=4),
       skip=st.one_of(st.integers(0, 7), st.integers(0, 255)),
       use=st.one_of(st.integers(0, 7), st.integers(0, 255)))
def test_generate_synthesise_round_trip(m, n, sc, fs, skip, use):
    word = descriptors.encode("zcm", start_count=sc, first_span=fs, non_zero_mask=1,
                              skip_span=skip, use_span=use)
    mask = generate(word, m, n).mask
    assert generate(synthesise(mask, m, n), m, n).mask == mask


@settings(max_examples=200, deadline=None)
@given(q=st.integers(3, 300), left=st.integers(0, 3), right=st.integers(0, 3),
       start=st.integers(0, 400), n=st.sampled_from([64, 128, 256]))
def test_conv_round_trip(q, left, right, start, n):
    if left + right >= q:
        return
    mask = conv_padding_mask(n, q, left, right, start)
    try:
        word = synthesise(mask, 128, n)
    except NoDescriptorError as exc:  # only when a span would exceed 256 columns
        assert "at most 256" in str(exc)
        assert q - left - right > 256
        return
    assert generate(word, 128, n).mask == mask


# ---------------------------------------------------------------- CLI

def test_cli_show_and_from_mask():
    r = CliRunner().invoke(app, ["zcm", "--start-count", "0,1,2,1", "--first-span", "1,1,0,0",
                                 "--skip-span", "2", "--use-span", "3", "--column-shift", "2",
                                 "-m", "32", "-n", "128", "--show", "-f", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["submasks"][1][:8] == "11000011" and doc["b_columns"][:4] == [None, None, None, 5]
    r = CliRunner().invoke(app, ["zcm", "--conv", "20,1,1", "-m", "128", "-n", "128"])
    assert r.exit_code == 0 and r.stdout == "0x0011018100000001\n"
    r = CliRunner().invoke(app, ["zcm", "--from-mask", hex(conv_padding_mask(128, 20, 1, 1)),
                                 "-m", "128", "-n", "128"])
    assert r.stdout == "0x0011018100000001\n"
    r = CliRunner().invoke(app, ["zcm", "--zero-columns", "0-2,7-9,14-16", "-m", "128", "-n", "32"])
    assert r.exit_code == 2 and r.stderr.startswith("descgen: error: not periodic")
    r = CliRunner().invoke(app, ["zcm", "--show", "--skip-span", "2"])
    assert r.exit_code == 2 and "--show needs -m and -n" in r.stderr


def test_cli_show_text_strip():
    r = CliRunner().invoke(app, ["zcm", "--skip-span", "2", "--use-span", "3", "-m", "64",
                                 "-n", "64", "--show"])
    assert r.exit_code == 0
    assert "····███····███····███····███····|····███····███····███····███····" in r.stdout
    # N=32 is no N of tcgen05.mma.ws (Table 39): a broken rule, shown only with --force
    r = CliRunner().invoke(app, ["zcm", "--skip-span", "2", "--use-span", "3", "-m", "64",
                                 "-n", "32", "--show"])
    assert r.exit_code == 1 and r.stdout == "" and "[zcm.n]" in r.stderr
    r = CliRunner().invoke(app, ["zcm", "--skip-span", "2", "--use-span", "3", "-m", "64",
                                 "-n", "32", "--show", "--force"])
    assert r.exit_code == 0 and "····███····███··|····███····███··" in r.stdout
