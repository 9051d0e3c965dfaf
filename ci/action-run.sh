#!/usr/bin/env bash
# The run logic of the citelens GitHub Action (action.yml), kept here so that it can be run,
# and tested (tests/action/), outside GitHub exactly as the action runs it.
#
#   ci/action-run.sh install   pip-installs citelens from this checkout (+ INPUT_EXTRA)
#   ci/action-run.sh run       runs the check chosen by the INPUT_* variables
#
# Settings come from the environment, never from arguments, because action.yml passes every
# input through `env:` (an input spliced into a shell line could inject commands). `run` writes
# exit-code=, summary= and out= to $GITHUB_OUTPUT and the Markdown summary to
# $GITHUB_STEP_SUMMARY when those are set. Its own errors are one fixed line on stderr, exit 2,
# and never repeat an input value.
set -uo pipefail
set -f  # INPUT_ARGS is split on whitespace but never glob-expanded

fail() {
    echo "citelens-action: error [policy]: $1" >&2
    exit 2
}

truthy() {
    case "$1" in
        true | True | TRUE | 1 | yes) return 0 ;;
        false | False | FALSE | 0 | no | "") return 1 ;;
        *) fail "$2 must be true or false" ;;
    esac
}

install() {
    local here spec extra="${INPUT_EXTRA:-}"
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    spec="$here"
    if [ -n "$extra" ]; then
        # only extra names (letters, digits, - _ and commas): nothing else reaches pip
        [[ "$extra" =~ ^[A-Za-z0-9_,-]+$ ]] || fail "input extra must name extras of citelens"
        spec="$here[$extra]"
    fi
    "${CITELENS_PYTHON:-python}" -m pip install --disable-pip-version-check --quiet "$spec"
}

# Prints the flag that makes a corpus mode fail the run: --ci where this citelens has it (the
# one flag of issue 11), else the older --strict.
corpus_gate_flag() {
    if "$CITELENS" corpus "$1" --help 2>/dev/null | grep -qE -- '(^|[[ ])--ci([] ,]|$)'; then
        echo "--ci"
    else
        echo "--strict"
    fi
}

run() {
    local command="${INPUT_COMMAND:-corpus}" mode="${INPUT_MODE:-support}"
    local out="${INPUT_OUT:-citelens-out}" summary code
    local -a argv extra=()
    CITELENS="${CITELENS_BIN:-citelens}"
    truthy "${INPUT_FAIL_ON_CHECK:-true}" "input fail-on-check" && fail_on_check=1 || fail_on_check=0
    truthy "${INPUT_STEP_SUMMARY:-true}" "input step-summary" && step_summary=1 || step_summary=0
    truthy "${INPUT_ONLINE:-false}" "input online" && online=1 || online=0
    # shellcheck disable=SC2206  # deliberate word splitting (globbing is off)
    [ -z "${INPUT_ARGS:-}" ] || extra=(${INPUT_ARGS})
    case "$command" in
        corpus | gold) ;;
        *) fail "input command must be corpus or gold" ;;
    esac
    case "$mode" in
        support | summary-citations | minimality) ;;
        *) fail "input mode must be support, summary-citations or minimality" ;;
    esac
    # every input is checked before anything is created
    mkdir -p -- "$out" || fail "output directory could not be created"
    summary="$out/summary.md"
    case "$command" in
        corpus)
            argv=("$CITELENS" corpus "$mode")
            [ -z "${INPUT_INPUT:-}" ] || argv+=("$INPUT_INPUT")
            argv+=(--out "$out")
            [ -z "${INPUT_CLAIMS:-}" ] || argv+=(--claims "$INPUT_CLAIMS")
            [ -z "${INPUT_EVIDENCE:-}" ] || argv+=(--evidence "$INPUT_EVIDENCE")
            [ -z "${INPUT_CITATIONS:-}" ] || argv+=(--citations "$INPUT_CITATIONS")
            [ -z "${INPUT_ADJUDICATIONS:-}" ] || argv+=(--adjudications "$INPUT_ADJUDICATIONS")
            [ -z "${INPUT_DOCUMENTS:-}" ] || argv+=(--documents "$INPUT_DOCUMENTS")
            argv+=("$(corpus_gate_flag "$mode")")
            ;;
        gold)
            # the results directory holds the baseline the gate compares with (often committed)
            argv=("$CITELENS" gold run --ci --results "${INPUT_RESULTS:-$out}")
            argv+=(--format markdown --out "$summary")
            [ -z "${INPUT_DATASETS:-}" ] || argv+=(--datasets "$INPUT_DATASETS")
            [ -z "${INPUT_ADAPTER:-}" ] || argv+=(--adapter "$INPUT_ADAPTER")
            [ "$online" = 0 ] || argv+=(--online)
            ;;
    esac
    # (the +-form keeps an empty array safe under `set -u` in bash 3.2, macOS runners' bash)
    argv+=(${extra[@]+"${extra[@]}"})
    "${argv[@]}"
    code=$?
    # a summary counts only when this run wrote it (0 or 1); after 2 or 3 it may be stale
    if [ "$code" -gt 1 ] || [ ! -f "$summary" ]; then
        summary=""
    fi
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        printf 'exit-code=%s\nsummary=%s\nout=%s\n' "$code" "$summary" "$out" >>"$GITHUB_OUTPUT"
    fi
    if [ "$step_summary" = 1 ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -n "$summary" ]; then
        cat -- "$summary" >>"$GITHUB_STEP_SUMMARY"
    fi
    # exit 1 is "the check failed": the step fails unless fail-on-check is false; bad input
    # (2), a bug (3) or an interrupt always fail it
    if [ "$code" = 1 ] && [ "$fail_on_check" = 0 ]; then
        exit 0
    fi
    exit "$code"
}

case "${1:-}" in
    install) install ;;
    run) run ;;
    *) fail "usage: action-run.sh install|run" ;;
esac
