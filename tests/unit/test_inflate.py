"""Bounded inflation of gzip and deflate bodies: the same bytes httpx would give, in pieces of
at most 1 MiB however well the body compresses, for any split of the raw bytes."""

from __future__ import annotations

import gzip
import random
import zlib

import httpx
import pytest

from app.providers.inflate import PIECE, Inflater, encodings

TEXT = b"".join(b'data: {"n": %d, "pad": "%s"}\n\n' % (i, b"x" * (i % 50)) for i in range(3000))


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def inflate(codings: list[str], pieces: list[bytes]) -> list[bytes]:
    inflater = Inflater(codings)
    out = [piece for raw in pieces for piece in inflater.feed(raw)]
    return out + list(inflater.flush())


CODED = {
    "gzip": (["gzip"], gzip.compress(TEXT)),
    "deflate": (["deflate"], zlib.compress(TEXT)),
    "raw-deflate": (["deflate"], raw_deflate(TEXT)),
    "gzip-twice": (["gzip", "gzip"], gzip.compress(gzip.compress(TEXT))),
    "identity-and-gzip": (["identity", "gzip"], gzip.compress(TEXT)),
}


@pytest.mark.parametrize("name", list(CODED))
def test_every_split_of_the_raw_bytes_inflates_to_the_body(name: str) -> None:
    codings, body = CODED[name]
    rng = random.Random(name)
    for _ in range(20):
        cuts = sorted(rng.sample(range(len(body)), min(30, len(body))))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert b"".join(inflate(codings, pieces)) == TEXT
    assert b"".join(inflate(codings, [body[i : i + 1] for i in range(len(body))])) == TEXT


def test_a_bomb_comes_out_in_pieces_of_at_most_one_mib() -> None:
    bomb = gzip.compress(b"\n" * (5 * PIECE + 123))
    pieces = inflate(["gzip"], [bomb])
    assert max(len(p) for p in pieces) <= PIECE
    assert sum(len(p) for p in pieces) == 5 * PIECE + 123


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_corrupt_body_is_a_decoding_error(coding: str) -> None:
    with pytest.raises(httpx.DecodingError):
        inflate([coding], [b"\x1f\x8b\x08\x00garbage-that-is-not-compressed" * 3])


def test_the_header_lists_codings_in_the_order_applied() -> None:
    assert encodings(" GZIP , identity,, br ") == ["gzip", "identity", "br"]
    assert encodings("") == []
