"""One help layout for every command (issue 11, item 4).

Every subcommand and sub-subcommand's ``--help`` has a one-line description, the inputs it
reads, the outputs it writes, its exit codes and one example, and every option has a help
text. The example of each command is parsed by the real parser, so it cannot go stale.
"""

from __future__ import annotations

import argparse
import shlex

import pytest

from citelens import __version__
from citelens.cli import _COMMAND_MODULES, build_parser, main

# Every parser the CLI has, by its words after ``citelens``.
ALL_COMMANDS = [
    ("support",),
    ("summary-citations",),
    ("minimality",),
    ("corpus",),
    ("corpus", "support"),
    ("corpus", "summary-citations"),
    ("corpus", "minimality"),
    ("sql",),
    ("report",),
    ("import",),
    ("review",),
    ("review", "render"),
    ("review", "export"),
    ("review", "import"),
    ("review", "gate"),
    ("gold",),
    ("gold", "run"),
    ("gold", "report"),
    ("gold", "validate"),
    ("gold", "detect"),
]

# Commands with a check: their help documents exit 1 and they take --ci.
WITH_CHECK = {
    ("support",),
    ("summary-citations",),
    ("minimality",),
    ("corpus",),
    ("corpus", "support"),
    ("corpus", "summary-citations"),
    ("corpus", "minimality"),
    ("review",),
    ("review", "import"),
    ("review", "gate"),
    ("gold",),
    ("gold", "run"),
    ("provenance",),
}
TAKES_CI = WITH_CHECK - {("corpus",), ("review",), ("gold",)}  # groups have no options

# The old names of --ci, hidden from --help but still accepted.
HIDDEN_ALIASES = {
    ("support",): ["--strict"],
    ("summary-citations",): ["--gate"],
    ("minimality",): ["--fail-on-flagged"],
    ("corpus", "support"): ["--strict"],
    ("corpus", "summary-citations"): ["--strict"],
    ("corpus", "minimality"): ["--strict"],
}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every registered parser, found by walking the subparser tree of each command."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def visit(words: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        found[words] = parser
        for name, child in _subparsers(parser).items():
            visit((*words, name), child)

    for command in _COMMAND_MODULES:
        visit((command,), _subparsers(build_parser(command))[command])
    return found


PARSERS = _walk()


def test_the_walk_finds_every_command() -> None:
    # the tests below run over every parser the walk finds, so a new command is checked too
    # (a new command with a check must be added to WITH_CHECK)
    assert set(ALL_COMMANDS) <= set(PARSERS)
    assert set(PARSERS) >= WITH_CHECK | set(HIDDEN_ALIASES)


FOUND = sorted(PARSERS)


def _sections(epilog: str) -> dict[str, str]:
    """The epilog's sections: a title line ``Name:`` then lines indented by two spaces."""
    sections: dict[str, str] = {}
    title = ""
    for line in epilog.splitlines():
        if line and not line.startswith(" "):
            assert line.endswith(":"), line
            title = line[:-1]
            assert title not in sections
            sections[title] = ""
        else:
            assert title and line.startswith("  "), line
            sections[title] += line[2:] + "\n"
    return sections


@pytest.mark.parametrize("words", FOUND, ids=" ".join)
def test_help_layout(words: tuple[str, ...]) -> None:
    parser = PARSERS[words]
    assert parser.formatter_class is argparse.RawDescriptionHelpFormatter
    # a one-line description first: one sentence of at most 80 characters
    assert parser.description is not None
    first = parser.description.split("\n")[0]
    assert 10 < len(first) <= 80 and first[-1] in ".?", first
    assert all(len(line) <= 80 for line in parser.description.split("\n"))
    assert parser.epilog is not None
    sections = _sections(parser.epilog)
    assert list(sections) == ["Reads", "Writes", "Exit codes", "Example"]
    assert sections["Reads"].strip() and sections["Writes"].strip()
    codes = [line.split()[0] for line in sections["Exit codes"].splitlines() if line[:1] != " "]
    expected = ["0", "1", "2", "3"] if words in WITH_CHECK else ["0", "2", "3"]
    assert codes == expected
    # the rendered help shows every part (the formatter keeps the layout as written)
    text = parser.format_help()
    for part in ("Reads:\n  ", "Writes:\n  ", "Exit codes:\n  0  ", "Example:\n  citelens "):
        assert part in text


@pytest.mark.parametrize("words", FOUND, ids=" ".join)
def test_example_parses(words: tuple[str, ...]) -> None:
    example = _sections(PARSERS[words].epilog or "")["Example"]
    argv = shlex.split(example.replace("\\\n", " "))
    # the example runs this very command (a group's example runs one of its steps)
    assert argv[0] == "citelens" and tuple(argv[1 : 1 + len(words)]) == words
    args = build_parser(words[0]).parse_args(argv[1:])
    # it names a command that runs, not a group (which would only print its usage)
    leaf = max((w for w in PARSERS if tuple(argv[1 : 1 + len(w)]) == w), key=len)
    assert not _subparsers(PARSERS[leaf]) and args.func is not None
    if "--ci" in argv:
        assert args.ci is True


@pytest.mark.parametrize("words", FOUND, ids=" ".join)
def test_every_option_has_help(words: tuple[str, ...]) -> None:
    parser = PARSERS[words]
    hidden: list[str] = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            hidden.extend(action.option_strings)
            continue
        assert action.help and action.help.strip(), action.option_strings or action.dest
    assert hidden == HIDDEN_ALIASES.get(words, [])
    options = {o for action in parser._actions for o in action.option_strings}
    assert ("--ci" in options) is (words in TAKES_CI)


@pytest.mark.parametrize("words", sorted(HIDDEN_ALIASES), ids=" ".join)
def test_old_flag_names_are_hidden_aliases_of_ci(words: tuple[str, ...]) -> None:
    parser = PARSERS[words]
    (alias,) = HIDDEN_ALIASES[words]
    text = parser.format_help()
    assert "--ci" in text and alias not in text
    # both names set the same destination
    actions = {o: a for a in parser._actions for o in a.option_strings}
    assert actions[alias].dest == actions["--ci"].dest == "ci"


def test_top_level_help_lists_exit_codes_and_an_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for part in ("Exit codes:\n  0    success\n  1    ", "  130  ", "Example:\n  citelens "):
        assert part in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr() == (f"citelens {__version__}\n", "")


@pytest.mark.parametrize("words", FOUND, ids=" ".join)
def test_help_exits_0_on_stdout(words: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*words, "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: citelens {' '.join(words)}") and err == ""
    assert "Exit codes:" in out and "Example:" in out


# Options that take a value show a short metavar (issue 11): F/FILE for an input file, OUT for
# an output, DIR, N for a number, FMT, or the choices; never argparse's upper-cased
# destination (``--max-excess-tokens MAX_EXCESS_TOKENS``). The review steps do not name theirs
# yet (listed here so that every other parser is pinned).
WITHOUT_METAVARS = {
    ("review", "render"),
    ("review", "export"),
    ("review", "import"),
    ("review", "gate"),
}


def _value_options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The options that take a value, by their long name (``--file`` for ``-f``)."""
    return {
        max(action.option_strings, key=len): action
        for action in parser._actions
        if action.option_strings and action.nargs != 0 and action.help != argparse.SUPPRESS
    }


@pytest.mark.parametrize("words", [w for w in FOUND if w not in WITHOUT_METAVARS], ids=" ".join)
def test_value_options_name_a_short_metavar(words: tuple[str, ...]) -> None:
    for option, action in _value_options(PARSERS[words]).items():
        if action.choices is not None and action.metavar is None:
            continue  # shown as {a,b,c}
        assert isinstance(action.metavar, str), (words, option)
        assert action.metavar != action.dest.upper(), (words, option)


def test_minimality_metavars_match_support() -> None:
    metavars = {o: a.metavar for o, a in _value_options(PARSERS[("minimality",)]).items()}
    assert metavars == {
        "--source": "F",
        "--claims": "F",
        "--citations": "F",
        "--max-excess-tokens": "N",
        "--json": "OUT",
        "--markdown": "OUT",
        "--parquet": "OUT",
        "--stdin-format": "FMT",
    }
    support = {o: a.metavar for o, a in _value_options(PARSERS[("support",)]).items()}
    # the same names for the same kinds of option as support --help
    for option in ("--claims", "--citations", "--json", "--markdown", "--parquet"):
        assert metavars[option] == support[option]
    assert support["--max-claims"] == metavars["--max-excess-tokens"] == "N"
    usage = PARSERS[("minimality",)].format_usage()
    assert "--source F --claims F --citations F" in usage and "MAX_EXCESS_TOKENS" not in usage
