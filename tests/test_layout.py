"""Flat rows by name (simulator.layout): offsets generated from the pieces, rows written by name."""

import numpy as np
import pytest

from simulator.layout import Layout


def test_offsets_follow_the_pieces_in_order():
    layout = Layout("units", ("thresholds", 4), "rating")
    assert (layout.at("units"), layout.at("thresholds"), layout.at("rating")) == (0, 1, 5)
    assert layout.size == 6
    assert layout.slots() == ["units", *(f"thresholds[{k}]" for k in range(4)), "rating"]


def test_a_row_is_written_by_name_whatever_the_order_of_the_arguments():
    layout = Layout("units", ("thresholds", 2), "rating")
    row = layout.row(rating=2, thresholds=[7, 8], units=5)
    assert row.tolist() == [5.0, 7.0, 8.0, 2.0]
    assert layout.read(row, "thresholds").tolist() == [7.0, 8.0]


def test_a_missing_unknown_or_mis_sized_piece_is_refused():
    layout = Layout("units", ("thresholds", 2))
    with pytest.raises(ValueError, match="missing thresholds"):
        layout.row(units=1)
    with pytest.raises(ValueError, match="unknown rating"):
        layout.row(units=1, thresholds=[1, 2], rating=3)
    with pytest.raises(ValueError, match="takes 2 values, got 3"):
        layout.row(units=1, thresholds=np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="named twice: units"):
        Layout("units", "units")
    with pytest.raises(KeyError, match="no piece 'rating'"):
        layout.at("rating")
