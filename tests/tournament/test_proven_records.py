"""Who wrote a folder (issue 50, item 3): a run is signed with its author's Ed25519 key, and a
reader believes it only when that key is yours or one you trust.  A folder re-signed with
another key (the attack: a run's key replaced and its games re-signed) is "signed by an
unknown key", said in the report's first line, in the terminal and by ``--verify``, and its
games are re-played (``arena.show.replay.verify_records``) before they are counted: a forged one is
refused with exit 2 naming the game.  An edited line that keeps its signature is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.runs.integrity import PREV_FIELD, SIG_FIELD, ChainSigner
from arena.runs.keys import fingerprint, own_key, public_bytes
from arena.runs.store import write_manifest

from .conftest import FAST, run_cli


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proven") / "run"
    result = run_cli(["--bot", "random:name=A", "--bot", "greedy:name=B", "--games", "4",
                      "--seed", "5", "--workers", "1", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    return out


def other_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """Another person's signing key (made in a config dir of its own)."""
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "mallory"))
    key = own_key()
    monkeypatch.undo()
    return key


def rekey(folder: Path, key: object, edit: int | None = None) -> str | None:
    """Re-sign ``folder``'s lines and manifest with ``key``, as whoever replaced a run's key
    would; ``edit``: first flip that line's winner and scores (its game id returned)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    lines = (folder / "games.jsonl").read_text().splitlines()
    signer = ChainSigner(key, bytes.fromhex(manifest["run_id"]))
    out, game = [], None
    for number, line in enumerate(lines):
        record = json.loads(line)
        record.pop(SIG_FIELD), record.pop(PREV_FIELD)
        if number == edit:
            record["scores"] = record["scores"][::-1]
            record["panda_points"] = record["panda_points"][::-1]
            record["winners"] = [1 - w for w in record["winners"]]
            game = record["game"]
        out.append(signer.sign_line(json.dumps(record, separators=(",", ":")), record["game"]))
    (folder / "games.jsonl").write_text("\n".join(out) + "\n")
    public = public_bytes(key)  # type: ignore[arg-type]
    manifest["signer"] = {"ed25519": public.hex(), "fingerprint": fingerprint(public)}
    manifest["seal"] = signer.seal()
    manifest.pop(SIG_FIELD)
    write_manifest(folder, manifest, key=key)
    return game


def copy(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    return out


def refused(result: object, game: str) -> None:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    last = result.output.strip().splitlines()[-1]  # type: ignore[attr-defined]
    assert last.startswith("Error: ") and "internal error" not in last, last
    assert game in last and "games.jsonl" in last and "does not re-play" in last, last
    assert "Traceback" not in result.output  # type: ignore[attr-defined]


def test_a_rekeyed_folder_is_signed_by_an_unknown_key_in_the_headline_and_verify(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = copy(played, tmp_path)
    rekey(folder, other_key(tmp_path, monkeypatch))
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "Signed by an unknown key" in result.stderr
    summary = (tmp_path / "r" / "summary.txt").read_text().splitlines()
    assert summary[0].startswith("Signed by an unknown key"), summary
    assert "re-played" in summary[0]
    md = (tmp_path / "r" / "report.md").read_text()
    headline = md.split("- ", 1)[1].splitlines()[0]
    assert headline.startswith("Signed by an unknown key"), headline
    verified = CliRunner().invoke(main, ["report", str(folder), "--verify",
                                         "--out", str(tmp_path / "v")])
    assert verified.exit_code == 0, verified.output
    assert "verified: 4 games re-played, signatures by an unknown key" in verified.stdout


def test_a_rekeyed_forgery_is_replayed_and_refused(played: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = copy(played, tmp_path)
    game = rekey(folder, other_key(tmp_path, monkeypatch), edit=1)
    assert game is not None
    report = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "r")])
    refused(report, game)
    other = json.loads((folder / "games.jsonl").read_text().splitlines()[0])["game"]
    # Even asking for another game of the folder: every record there must prove itself.
    refused(CliRunner().invoke(main, ["replay", str(folder), "--game", other]), game)


def test_resume_refuses_a_folder_signed_by_another_key(played: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    folder = copy(played, tmp_path)
    rekey(folder, other_key(tmp_path, monkeypatch))
    result = run_cli(["--resume", str(folder), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "unknown key" in result.output and "not by yours" in result.output


def test_a_key_you_trust_is_believed_without_replaying(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = copy(played, tmp_path)
    key = other_key(tmp_path, monkeypatch)
    rekey(folder, key)
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "mallory"))
    exported = CliRunner().invoke(main, ["keys", "export", "--out", str(tmp_path / "m.pub")])
    assert exported.exit_code == 0, exported.output
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "me"))
    trusted = CliRunner().invoke(main, ["keys", "trust", str(tmp_path / "m.pub")])
    assert trusted.exit_code == 0 and "trusted key" in trusted.output, trusted.output
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    first = (tmp_path / "r" / "summary.txt").read_text().splitlines()[0]
    assert first == f"Signed by a key you trust ({fingerprint(public_bytes(key))}).", first


def test_your_own_run_verifies_and_says_what(played: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(played), "--verify",
                                       "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    mine = fingerprint(public_bytes(own_key()))  # type: ignore[arg-type]
    assert (f"verified: 4 games re-played, signatures by your key ({mine}), chain whole and "
            "sealed at 4 games") in result.stdout


def test_an_edited_line_fails_its_signature(played: Path, tmp_path: Path) -> None:
    """A line edited without the key keeps a signature over other bytes: refused, named."""
    folder = copy(played, tmp_path)
    lines = (folder / "games.jsonl").read_text().splitlines()
    assert '"capped":' in lines[2]
    lines[2] = lines[2].replace('"capped":true', '"capped":false').replace(
        '"capped":false', '"capped": true', 1)
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
    for args in (["report", str(folder), "--out", str(tmp_path / "r")],
                 ["replay", str(folder), "--game", "000-0000-0"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "line 3 of" in result.output.lower() and "fails its signature" in result.output


def test_keys_show_and_export_print_your_public_key(tmp_path: Path) -> None:
    shown = CliRunner().invoke(main, ["keys"])
    assert shown.exit_code == 0, shown.output
    mine = fingerprint(public_bytes(own_key()))  # type: ignore[arg-type]
    assert f"your key: {mine}" in shown.output
    exported = CliRunner().invoke(main, ["keys", "export"])
    assert exported.output.startswith("takenoko-arena-ed25519 ")
    bad = tmp_path / "bad.pub"
    bad.write_text("not a key\n")
    refused_trust = CliRunner().invoke(main, ["keys", "trust", str(bad)])
    assert refused_trust.exit_code == 2 and "is not a takenoko-arena public key" in \
        refused_trust.output


def test_python_warnings_reaching_a_command_become_notes(
        capsys: pytest.CaptureFixture[str]) -> None:
    import warnings

    from arena.commands.common import warning_as_note

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = warning_as_note
        warnings.warn("a thing the user should know", UserWarning, stacklevel=1)
    assert capsys.readouterr().err == "note: a thing the user should know\n"


def test_a_folder_of_format_2_says_who_wrote_it_is_not_known_and_replays(
        played: Path, tmp_path: Path) -> None:
    """A run.key MAC travels with the folder: it proves no author (the attack that re-keyed
    such a folder was believed), so the games are re-played and the first line says so."""
    from arena.runs.integrity import RunKeys, sign_line, sign_manifest, write_keys

    folder = copy(played, tmp_path)
    keys = RunKeys.new()
    write_keys(folder, keys)
    lines = []
    for line in (folder / "games.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.pop(SIG_FIELD), record.pop(PREV_FIELD)
        lines.append(sign_line(keys, json.dumps(record, separators=(",", ":"))))
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((folder / "manifest.json").read_text())
    for name in (SIG_FIELD, "signer", "run_id", "seal"):
        manifest.pop(name)
    (folder / "manifest.json").write_text(json.dumps(sign_manifest(keys, manifest)))
    result = CliRunner().invoke(main, ["report", str(folder), "--verify",
                                       "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    first = (tmp_path / "r" / "summary.txt").read_text().splitlines()[0]
    assert first.startswith("Signed with a folder secret (run.key") and "not known" in first
    assert "re-played" in first
    assert "verified: 4 games re-played, MACs under run.key" in result.stdout


def test_a_damaged_key_file_is_one_sentence(played: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "signing.key").write_text("not a key\n")
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(config))
    for args in (["keys"], ["report", str(played), "--out", str(tmp_path / "r")],
                 ["tournament", "--resume", str(played), "--quiet"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        last = result.output.strip().splitlines()[-1]
        assert "signing.key is not a takenoko-arena signing key" in last, (args, last)
        assert "Traceback" not in result.output
