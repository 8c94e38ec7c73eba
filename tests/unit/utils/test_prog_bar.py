"""ProgBarCounter draws one self-overwriting line on a TTY and nothing elsewhere."""

import io

from rlpyt.utils.prog_bar import ProgBarCounter


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def test_draws_one_line_on_a_tty():
    stream = FakeTty()
    bar = ProgBarCounter(200, stream=stream)
    for count in range(0, 201, 10):
        bar.update(count)
    text = stream.getvalue()
    assert "\n" not in text and text.count("\r") >= 2
    assert "50.0%" in text
    bar.stop()
    text = stream.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1 and "100.0%" in text.splitlines()[-1]
    bar.update(100)
    bar.stop()
    assert stream.getvalue() == text  # stopped: silent


def test_redraws_only_when_the_bar_moves():
    stream = FakeTty()
    bar = ProgBarCounter(10**9, stream=stream)
    bar.update(1)
    bar.update(2)
    assert stream.getvalue().count("\r") == 1


def test_silent_when_not_a_tty(capsys):
    plain = io.StringIO()
    bar = ProgBarCounter(10, stream=plain)
    bar.update(5)
    bar.stop()
    assert plain.getvalue() == ""
    default = ProgBarCounter(10)  # pytest's captured stderr is not a TTY
    default.update(10)
    default.stop()
    assert capsys.readouterr() == ("", "")


def test_zero_total_does_not_divide_by_zero():
    stream = FakeTty()
    bar = ProgBarCounter(0, stream=stream)
    bar.update(0)
    bar.stop()
    assert stream.getvalue().count("\n") == 1
