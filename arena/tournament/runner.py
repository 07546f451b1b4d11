"""Running a tournament: the parent's loop over an executor, writing as games finish.

Everything the ``arena tournament`` command does is here as library calls::

    from arena.tournament import TournamentConfig, RunSettings, run_tournament
    from arena.play.registry import BotSpec
    config = TournamentConfig((BotSpec.parse("random"), BotSpec.parse("random:complete=true")),
                              games=100, seed=1)
    result = run_tournament(config, Path("runs/demo"), settings=RunSettings(workers=2))
    print(result.standings.table())

The parent stays light, because on a small machine it shares the cores with the workers: it
writes each finished game's line (already encoded by the worker), adds its summary to the
standings and the SPRT, and draws the progress.  Ctrl-C sets a flag the loop reads between
games: the workers are stopped, the games in flight dropped, every finished game is already
on disk, and the result says the run was interrupted (a second Ctrl-C stops at once).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Protocol

from arena.engine import DEFAULT_CARD_SET, ArenaError, RuleOptions
from arena.engine import card_files as cards
from arena.jail.bwrap import cgroup_note, filter_note, sweep_cgroups, view_problem
from arena.jail.sandbox import Isolation, module_of, parse_participant
from arena.play.bot import BotConfigError
from arena.play.seeds import deal_key_check
from arena.runs.integrity import (
    KEY_FILE,
    ChainCheck,
    ChainSigner,
    IntegrityError,
    RunKeys,
    folder_check,
    is_chained,
    is_signed,
    read_keys,
    sign_line,
    write_keys,
)
from arena.runs.keys import KeyFileError, fingerprint, own_key, public_bytes, whose
from arena.runs.records import result_problem
from arena.runs.segments import SegmentError, refuse_links
from arena.runs.store import (
    FILE_FORMAT,
    GAMES,
    LOG,
    MANIFEST,
    GamesWriter,
    StoreError,
    arena_version,
    has_games,
    now_iso,
    read_games,
    read_manifest,
    run_lock,
    write_manifest,
)
from arena.show.replay import needs_replay, verify_records
from arena.tournament.experiment import CardExperiment
from arena.tournament.live import LiveTable
from arena.tournament.logs import run_logging
from arena.tournament.progress import Progress
from arena.tournament.schedule import (
    Schedule,
    ScheduleError,
    SprtParams,
    TournamentConfig,
    make_schedule,
)
from arena.tournament.sprt import SprtState, game_score
from arena.tournament.standings import Standings
from arena.tournament.worker import Finished, summarize

log = logging.getLogger("arena.tournament")

#: The manifest fields a resumed run must match, in the order they are checked.
CHECKED_FIELDS = ("participants", "players", "games", "format", "seed", "options",
                  "move_time", "sprt", "card_set", "experiment", "deals")


def default_workers() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class RunSettings:
    """How to run (never what is played: none of this changes a record)."""

    workers: int = field(default_factory=default_workers)
    executor: str = "local"
    scheduler: str | None = None
    chunk: int | None = None
    #: ``auto`` (a bar on a terminal, lines otherwise), ``bar``, ``lines`` or ``none``.
    progress: str = "auto"
    verbose: bool = False
    #: Which bots run in processes of their own, and their limits (see ``sandbox.py``).
    isolation: Isolation = field(default_factory=Isolation)


@dataclass
class RunResult:
    """What a run did; ``standings`` and ``sprt`` cover every game in the file."""

    directory: Path
    schedule: Schedule
    done: int
    played: int
    elapsed: float
    interrupted: bool
    finished: bool
    standings: Standings
    sprt: SprtState | None
    manifest: dict[str, Any]

    @property
    def total(self) -> int:
        return self.schedule.total

    @property
    def errors(self) -> int:
        return self.standings.errors


class Executor(Protocol):
    def play(self, indices: list[int]) -> Iterator[Finished | None]: ...


def _whole(manifest: dict[str, Any], name: str) -> int:
    """A count or seed of the manifest, which must be written as a whole number."""
    value = manifest[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError(f"the manifest's {name} must be a whole number, not {_short(value)}")
    if abs(value) >= 10**30:
        raise StoreError(f"the manifest's {name} is a number of {len(str(abs(value)))} "
                         "digits (manifest.json was edited)")
    return value


def deal_key_of(manifest: dict[str, Any], keys: RunKeys | None,
                given: bytes | None = None) -> bytes | None:
    """The deal key of a run: None for public deals; else ``given`` (read from the key file
    the command was given), the run's ``run.key`` (live) or the manifest's ``deal_key``
    (written when a run with a key of its own ended), checked against the manifest's
    fingerprint.  A shared key file's key is in neither: it must be given."""
    deals = manifest.get("deals")
    if not isinstance(deals, dict) or not deals.get("keyed"):
        return None
    if given:
        if deal_key_check(given) != deals.get("check"):
            raise StoreError(f"the --deal-key file holds another key (fingerprint "
                             f"{deal_key_check(given)}) than the run's deals were keyed with "
                             f"(fingerprint {deals.get('check')})")
        return given
    key: bytes | None = keys.deals if keys is not None else None
    if key is None and deals.get("shared") and "deal_key" not in manifest:
        raise StoreError(f"the run's deals are keyed by a shared key file (fingerprint "
                         f"{deals.get('check')}), which is never kept in the run's folder: "
                         "give it again with --deal-key FILE")
    if key is None and isinstance(manifest.get("deal_key"), str):
        with contextlib.suppress(ValueError):
            key = bytes.fromhex(manifest["deal_key"])
    if key is None:
        raise StoreError("the run's deals are keyed and its key is not here (no run.key in "
                         "the folder, and the run has not ended); resume it where it ran")
    if deal_key_check(key) != deals.get("check"):
        raise StoreError("the run's deal key does not match its manifest (run.key or "
                         "deal_key was edited)")
    return key


def config_from_manifest(manifest: dict[str, Any], isolation: Isolation | None = None,
                         keys: RunKeys | None = None,
                         deal_key: bytes | None = None) -> TournamentConfig:
    """The configuration a manifest was written for (``arena tournament --resume DIR``);
    untrusted specs are checked away from this process (``parse_participant``); ``keys``: the
    folder's ``run.key`` (the deal key of a live run with keyed deals); ``deal_key``: the key
    of the ``--deal-key`` file given (a shared key is kept nowhere else)."""
    deals = manifest.get("deals")
    shared = isinstance(deals, dict) and bool(deals.get("shared"))
    deal_key = deal_key_of(manifest, keys, deal_key)
    try:
        participants = tuple(parse_participant(p["spec"], isolation)
                             for p in manifest["participants"])
        for spec, entry in zip(participants, manifest["participants"]):
            if spec.name != entry["name"]:
                raise StoreError(f"the manifest names participant {entry['spec']!r} "
                                 f"{entry['name']!r}, but its spec says {spec.name!r}")
        sprt = manifest.get("sprt")
        options = RuleOptions.from_dict(manifest.get("options") or {})
        experiment = manifest.get("experiment")
        return TournamentConfig(
            participants=participants,
            players=_whole(manifest, "players"),
            games=_whole(manifest, "games"),
            format=str(manifest["format"]),
            seed=_whole(manifest, "seed"),
            options=options,
            move_time=manifest.get("move_time"),
            sprt=SprtParams(**{k: sprt[k] for k in ("elo0", "elo1", "alpha", "beta")})
            if sprt else None,
            cards=cards.from_manifest(manifest.get("card_set"), options).cards,
            experiment=CardExperiment.from_dict(experiment) if experiment else None,
            deal_key=deal_key,
            shared_deals=shared,
        )
    except StoreError:
        raise
    except (ArenaError, BotConfigError, ScheduleError) as exc:
        raise StoreError(f"the manifest does not describe a tournament that can be resumed: "
                         f"{exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise StoreError(f"the manifest is incomplete or damaged ({exc!r})") from None


def check_manifest(config: TournamentConfig, manifest: dict[str, Any], directory: Path) -> None:
    """Refuse to resume ``directory`` with a configuration its manifest was not written for."""
    expected = config.manifest_fields()
    for name in CHECKED_FIELDS:
        have = manifest.get(name)
        want = expected[name]
        if name == "sprt" and isinstance(have, dict):
            have = {k: have.get(k) for k in ("elo0", "elo1", "alpha", "beta")}
        if name == "participants" and isinstance(have, list):
            have = [{k: p.get(k) for k in ("name", "spec", "class", "params")} for p in have]
        if name == "card_set":
            _check_card_set(have, want, manifest, directory)
            continue
        if name == "deals" and have is None:
            have = {"keyed": False}  # written before keyed deals: public ones
        if have != want:
            raise StoreError(
                f"{directory} was played with a different {name} ({_difference(have, want)}); "
                "resume it with the command that started it, or with just `arena tournament "
                f"--resume {directory}`, which reads that command from the manifest (if that "
                "fails too, manifest.json was edited)"
            )


def _check_card_set(have: Any, want: dict[str, Any], manifest: dict[str, Any],
                    directory: Path) -> None:
    """The card sets must be the same (their names and files may differ).  A manifest
    written before card sets was played with the printed cards and its Emperor option."""
    if have is None:
        try:
            emperor = RuleOptions.from_dict(manifest.get("options") or {}).emperor_points
        except ArenaError:
            emperor = want["emperor"]
        have = cards.summary(DEFAULT_CARD_SET, emperor)
    if not isinstance(have, dict) or have.get("hash") != want["hash"]:
        have = have if isinstance(have, dict) else {}
        raise StoreError(
            f"{directory} was played with a different card set ({cards.difference(have, want)});"
            " resume it with the --cards file that started it, or with just `arena tournament "
            f"--resume {directory}`, which reads the card set from the manifest"
        )


def _difference(have: Any, want: Any) -> str:
    """What differs, named: the keys of two dicts, or the first participant and field."""
    if isinstance(have, dict) and isinstance(want, dict):
        keys = [k for k in sorted(set(have) | set(want), key=str) if have.get(k) != want.get(k)]
        return "; ".join(f"{k}: {have.get(k)!r}, not {want.get(k)!r}" for k in keys)
    if isinstance(have, list) and isinstance(want, list) and len(have) == len(want):
        for i, (a, b) in enumerate(zip(have, want)):
            if a != b and isinstance(a, dict) and isinstance(b, dict):
                return f"participant {i + 1}: {_difference(a, b)}"
    return f"{_short(have)}, not {_short(want)}"


def _short(value: Any) -> str:
    if isinstance(value, list) and value and isinstance(value[0], dict) and "name" in value[0]:
        value = [p["name"] for p in value]
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def new_manifest(config: TournamentConfig, schedule: Schedule) -> dict[str, Any]:
    fields = config.manifest_fields()
    return {
        "file_format": FILE_FORMAT,
        "arena_version": arena_version(),
        "participants": fields["participants"],
        "players": fields["players"],
        "games": fields["games"],
        "scheduled": schedule.total,
        "format": fields["format"],
        "seed": fields["seed"],
        "options": fields["options"],
        "move_time": fields["move_time"],
        "sprt": fields["sprt"],
        "card_set": fields["card_set"],
        "experiment": fields["experiment"],
        "deals": fields["deals"],
        "catalog": cards.catalog(config.cards),
        "started": now_iso(),
        "finished": None,
    }


@dataclass
class Prepared:
    """A run's folder, ready: its schedule (of the configuration as played: a new run's
    keyed deals resolved), manifest, keys, the records kept, and whether a cut-short last
    line was dropped."""

    config: TournamentConfig
    schedule: Schedule
    manifest: dict[str, Any]
    keys: RunKeys | None
    records: list[dict[str, Any]]
    cut: bool
    #: Signs the lines and the manifest of a format-3 run (None: an older run's MACs).
    signer: ChainSigner | None = None

    def sign(self, line: str, game: str) -> str:
        """A finished game's line as it is written: signed in the chain, or MAC'd."""
        if self.signer is not None:
            return self.signer.sign_line(line, game)
        return line if self.keys is None else sign_line(self.keys, line)

    def write_manifest(self, directory: Path) -> None:
        """The manifest, with the seal of the lines signed so far."""
        if self.signer is not None:
            self.manifest["seal"] = self.signer.seal()
            write_manifest(directory, self.manifest, key=self.signer.key)
        else:
            write_manifest(directory, self.manifest, self.keys)


def _your_key() -> Any:
    try:
        return own_key(create=True)
    except KeyFileError as exc:
        raise StoreError(str(exc)) from None


def resolve_deals(config: TournamentConfig, isolation: Isolation) -> TournamentConfig:
    """A new run's deals: keyed by a fresh random key when any participant is isolated and
    no key was chosen (``deal_key=None``); ``deal_key=b""`` keeps public deals on purpose."""
    if config.deal_key is None and any(isolation.isolates(p) for p in config.participants):
        return replace(config, deal_key=secrets.token_bytes(32))
    return config


def prepare(config: TournamentConfig, directory: Path, *, resume: bool,
            isolation: Isolation | None = None) -> Prepared:
    """Check or create ``directory`` (see ``Prepared``)."""
    if resume:
        return _prepare_resume(config, directory)
    return _prepare_new(config, directory, isolation)


def _prepare_resume(config: TournamentConfig, directory: Path) -> Prepared:
    """A run folder to go on with: its manifest checked against ``config``, its records
    read (through the one verified reader, ``arena.runs.reader``, by ``read_games``) and
    checked against the schedule, and the signer that goes on with its chain."""
    manifest = read_manifest(directory)
    try:
        keys = read_keys(directory)
    except IntegrityError as exc:
        raise StoreError(str(exc)) from None
    signed = is_signed(manifest)
    key = _resume_signer_key(manifest, keys, signed, directory)
    if config.deal_key is None:
        config = replace(config, deal_key=deal_key_of(manifest, keys))
    check_manifest(config, manifest, directory)
    if "catalog" not in manifest:
        # Written before manifests carried the catalog; the card set was just checked to
        # be this configuration's, so the catalog can be added (the reports want it).
        manifest["catalog"] = cards.catalog(config.cards)
        write_manifest(directory, manifest, keys, key)
    schedule = make_schedule(config)
    try:
        check = folder_check(directory / GAMES, manifest, keys)
    except IntegrityError as exc:
        raise StoreError(str(exc)) from None
    records, cut = read_games(directory, check)
    _check_records(records, schedule, config, directory)
    # After the checks of form, which name what is wrong more plainly: records without
    # MACs prove themselves by re-playing.
    if needs_replay(check):
        try:
            verify_records(records, directory / GAMES)
        except IntegrityError as exc:
            raise StoreError(str(exc)) from None
    if not signed:
        log.warning("%s was written by an earlier version of the arena, without MACs: its "
                    "records are not authenticated, nor are the games added now",
                    directory)
    if isinstance(check, ChainCheck):
        signer = ChainSigner(key, bytes.fromhex(manifest["run_id"]), check.chain,
                             check.count, check.last)
        return Prepared(config, schedule, manifest, keys, records, cut, signer)
    return Prepared(config, schedule, manifest, keys if signed else None, records, cut)


def _resume_signer_key(manifest: dict[str, Any], keys: RunKeys | None, signed: bool,
                       directory: Path) -> Any:
    """Your signing key where the folder's records are chained (only their author may add
    to the chain), else None; a signed folder without its key file cannot be resumed (its
    records could not be authenticated)."""
    if is_chained(manifest):
        key = _your_key()
        public = bytes.fromhex(manifest["signer"]["ed25519"])
        if public_bytes(key) != public:
            raise StoreError(f"{directory} is signed by {whose(public).words()}, not by "
                             "yours: only its author can resume it")
        return key
    if signed and keys is None:
        raise StoreError(f"{directory} has no {KEY_FILE}: its records cannot be "
                         "authenticated, so it cannot be resumed (resume it where it ran)")
    return None


def _check_records(records: list[dict[str, Any]], schedule: Schedule,
                   config: TournamentConfig, directory: Path) -> None:
    """Every record read is a game of the schedule, with its seed, seats and intervention,
    and a result of the game's form (an edited line is named, to be deleted and replayed)."""
    by_id = schedule.by_id()
    for record in records:
        game = by_id.get(record["game"])
        if game is None:
            raise StoreError(f"{directory / GAMES} holds game {record['game']!r}, which is "
                             "not in this tournament's schedule")
        if record.get("seed") != game.seed or record.get("seats") != schedule.names(game) \
                or record.get("intervention") != game.recorded_intervention():
            raise StoreError(f"{directory / GAMES}: game {game.id} does not match the "
                             "schedule (seed, seats or intervention differ)")
        problem = result_problem(record, config.players)
        if problem:
            raise StoreError(f"{directory / GAMES}: game {game.id}'s {problem} (the line "
                             "was edited; delete it to have the game played again)")


def _prepare_new(config: TournamentConfig, directory: Path,
                 isolation: Isolation | None) -> Prepared:
    """A new run folder: its schedule, manifest (signed by your key, with a fresh run id)
    and, for a live run with keyed deals, its key file."""
    refuse_occupied(directory)
    if isolation is not None:
        config = resolve_deals(config, isolation)
    schedule = make_schedule(config)
    # run.key holds the deal key of a live run with keyed deals, and nothing that signs; a
    # shared key file's key stays in its file: the folder may be handed to a bot's author.
    keys = RunKeys(b"", None if config.shared_deals else config.deal_key or None)
    key = _your_key()
    run_id = secrets.token_bytes(16)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        manifest = new_manifest(config, schedule)
        public = public_bytes(key)
        manifest["signer"] = {"ed25519": public.hex(), "fingerprint": fingerprint(public)}
        manifest["run_id"] = run_id.hex()
        if keys.deals is not None:
            write_keys(directory, keys)
        ready = Prepared(config, schedule, manifest, keys, [], False, ChainSigner(key, run_id))
        ready.write_manifest(directory)
    except OSError as exc:  # before any game: nothing is lost by stopping here
        raise StoreError(f"cannot write the tournament to {directory}: "
                         f"{exc.strerror or exc}") from None
    return ready


def make_executor(config: TournamentConfig, settings: RunSettings) -> Executor:
    if settings.executor == "dask":
        from arena.tournament.dask_runner import DaskExecutor

        return DaskExecutor(config, settings.workers, settings.scheduler, settings.chunk,
                            isolation=settings.isolation)
    if settings.executor != "local":
        raise ValueError(f"unknown executor {settings.executor!r}")
    from arena.tournament.local import LocalExecutor

    return LocalExecutor(config, settings.workers, settings.chunk,
                         isolation=settings.isolation)


class _Interrupt:
    """Ctrl-C as a flag the loop reads (a second Ctrl-C raises KeyboardInterrupt)."""

    def __init__(self) -> None:
        self.requested = False
        self.previous: Any = None
        self.installed = False

    def __enter__(self) -> _Interrupt:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
            self.installed = True
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc: object) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self.previous)


def refuse_occupied(directory: Path) -> None:
    """StoreError when a new run's ``directory`` already holds a tournament."""
    if (directory / MANIFEST).exists() or has_games(directory):
        raise StoreError(f"{directory} already holds a tournament; add --resume to continue it "
                         "or choose another --out")


def check_out(directory: Path, resume: bool) -> None:
    """The refusals of ``--out`` that need no game and no worker (a new run's folder that
    holds a tournament, or cannot be made), for the command to say before its banner: a
    banner announcing a tournament that is then refused reads as if it had started.  The
    lock is tried first, so a folder another run is playing into is named as such."""
    if directory.is_dir():
        with run_lock(directory):
            if not resume:
                refuse_occupied(directory)
    if resume or directory.is_dir():
        return
    # Nothing is made here: a folder the jail would show is refused after this, and must not
    # be left behind.  The nearest existing parent says whether the folder could be made.
    parent = directory.absolute()
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"cannot write the tournament to {directory}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StoreError(f"cannot write the tournament to {directory}: {parent} is not "
                         "writable")


def run_tournament(config: TournamentConfig, directory: Path, *, resume: bool = False,
                   settings: RunSettings | None = None,
                   stream: IO[str] | None = None) -> RunResult:
    """Play (or go on playing) a tournament into ``directory``; see the module docstring.

    Raises ``StoreError`` for a directory that cannot be used as asked (already holds a
    tournament without ``resume``, or its manifest does not match ``config``).
    """
    settings = settings or RunSettings()
    stream = stream if stream is not None else sys.stderr
    directory = Path(directory)
    jail_check(config, settings.isolation, directory)  # before anything is written
    if not resume:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot write the tournament to {directory}: "
                             f"{exc.strerror or exc}") from None
    elif not (directory / MANIFEST).is_file():
        read_manifest(directory)  # names what is missing, before a lock file is made
    try:
        refuse_links(directory)  # before the lock, the log or a line is opened there
    except SegmentError as exc:
        raise StoreError(str(exc)) from None
    with run_lock(directory):
        return _run_locked(config, directory, resume, settings, stream)


def jail_check(config: TournamentConfig, isolation: Isolation, directory: Path) -> None:
    """Refuse, before any game, a run whose untrusted bots cannot be jailed here, or whose
    jail would show them the run's folder (StoreError, one sentence)."""
    isolated = [spec for spec in config.participants if isolation.isolates(spec)]
    if not isolated:
        return
    problem = isolation.problem(isolated)
    if problem is None:
        view = isolation.view([module_of(spec.target) for spec in isolated])
        problem = view_problem(view, directory)
    if problem is not None:
        raise StoreError(problem)
    sweep_cgroups()  # left by a run killed outright


def _run_locked(config: TournamentConfig, directory: Path, resume: bool,
                settings: RunSettings, stream: IO[str]) -> RunResult:
    """The run, ``directory`` locked (see ``run_tournament``)."""
    ready = prepare(config, directory, resume=resume, isolation=settings.isolation)
    config, schedule, manifest = ready.config, ready.schedule, ready.manifest
    tally = _Tally(config, schedule)
    by_id = schedule.by_id()
    for record in ready.records:
        tally.count(by_id[record["game"]].index, summarize(record))
    sprt, done = tally.sprt, tally.done
    remaining = [] if sprt and sprt.decision else [
        g.index for g in schedule.games if g.index not in done]
    played = 0
    interrupted = False
    started = time.monotonic()
    if remaining:
        with run_logging(directory / LOG, verbose=settings.verbose, console=stream):
            _log_start(ready, directory, resume, settings, len(done), len(remaining))
            played, interrupted = _play(ready, tally, remaining, directory, settings, stream)
            if interrupted:
                # For arena.log: the console already gets the command's own sentence.
                log.info("interrupted: %d of %d games kept in %s", len(done),
                            schedule.total, directory)
            else:
                log.info("%d games played in %.1f s; %d of %d in the file%s", played,
                         time.monotonic() - started, len(done), schedule.total,
                         f"; {sprt.describe()}" if sprt is not None else "")
    complete = len(done) == schedule.total or bool(sprt and sprt.decision)
    _seal(ready, sprt, directory, complete, played)
    return RunResult(directory, schedule, len(done), played, time.monotonic() - started,
                     interrupted, complete, tally.standings, sprt, manifest)


class _Tally:
    """What the games kept so far add up to: the schedule indices done, the standings, the
    SPRT's state, and per deal the games played (a study's progress is in deals)."""

    def __init__(self, config: TournamentConfig, schedule: Schedule) -> None:
        self.schedule = schedule
        self.standings = Standings(config.names)
        self.sprt = SprtState(config.sprt) if config.sprt else None
        self.done: set[int] = set()  # schedule indices
        self.per_deal = Counter(g.deal for g in schedule.games)
        self.deal_done: Counter[int] = Counter()

    def count(self, index: int, summary: Any) -> None:
        """Add one kept game.  A deal is one pairing's seed: deal 0 of two pairings are two
        deals (as the reports count them), not one."""
        game = self.schedule.games[index]
        self.done.add(index)
        self.deal_done[game.deal] += 1
        self.standings.add(self.schedule.names(game), summary, (game.pairing, game.deal))
        if self.sprt is not None:
            self.sprt.add(game.deal, game.rotation,
                          game_score(summary.winners, game.seats.index(0)))

    def deals_line(self) -> str:
        """``deals complete: 7 of 30``: a study's progress in the unit of its analysis."""
        complete = sum(1 for deal, n in self.deal_done.items() if n == self.per_deal[deal])
        return f"deals complete: {complete} of {len(self.per_deal)}"


def _log_start(ready: Prepared, directory: Path, resume: bool, settings: RunSettings,
               done: int, remaining: int) -> None:
    """Say in arena.log what this session plays: how far a resumed run was, the workers,
    and which bots play in jails of their own."""
    if resume:
        log.info("resuming %s: %d of %d games done%s", directory, done, ready.schedule.total,
                 " (a cut-short last line was dropped)" if ready.cut else "")
    log.info("playing %d games with %d %s worker(s)", remaining, settings.workers,
             settings.executor)
    isolated = [spec.name for spec in ready.config.participants
                if settings.isolation.isolates(spec)]
    if isolated:
        memory = settings.isolation.memory
        log.info("in jails of their own (memory limit %s; %s; %s): %s",
                 f"{memory} MB" if memory else "none", cgroup_note(), filter_note(),
                 ", ".join(isolated))


def _play(ready: Prepared, tally: _Tally, remaining: list[int], directory: Path,
          settings: RunSettings, stream: IO[str]) -> tuple[int, bool]:
    """Play the remaining games, each line signed and written as it comes, with the
    progress shown; the games played and whether the run was interrupted.

    A study's seats are a level and its own copies, whose standings mean nothing: its
    progress is the deals whose every arm is played (what its analysis uses)."""
    schedule, done = ready.schedule, tally.done
    study = ready.config.experiment is not None
    table = LiveTable(tally.standings, schedule, done)
    progress = Progress(schedule.total, len(done), stream, mode=settings.progress,
                        table=None if study else table.lines,
                        label="" if study else "leader")
    leader = tally.deals_line if study else tally.standings.leader
    writer = GamesWriter(directory, lazy=True)
    games = make_executor(ready.config, settings).play(remaining)
    played = 0
    interrupted = False
    try:
        with _Interrupt() as interrupt:
            try:
                for item in games:
                    if item is None:
                        writer.flush()  # the games of the messages just read
                    elif item.index not in done:
                        writer.write(ready.sign(item.line, schedule.games[item.index].id))
                        tally.count(item.index, item.summary)
                        played += 1
                        if _kept(item, tally):
                            break
                    progress.update(len(done), leader)
                    if interrupt.requested:
                        interrupted = True
                        break
            except KeyboardInterrupt:
                interrupted = True
    finally:
        games.close()
        writer.close()
        progress.update(len(done), leader, force=not interrupted)
        progress.close()
    return played, interrupted


def _kept(item: Finished, tally: _Tally) -> bool:
    """Log a game just kept (a line per game, made only when arena.log keeps it: thousands
    a second); whether the SPRT has now decided, which ends the run."""
    if log.isEnabledFor(logging.DEBUG):
        schedule = tally.schedule
        game = schedule.games[item.index]
        log.debug("game %s (%s): winners %s%s", game.id, " vs ".join(schedule.names(game)),
                  list(item.summary.winners),
                  f", {item.summary.error_kind} by seat {item.summary.error_seat}"
                  if item.summary.error_seat is not None else "")
    sprt = tally.sprt
    if sprt is not None and sprt.decision:
        log.info("%s", sprt.describe())
        return True
    return False


def _seal(ready: Prepared, sprt: SprtState | None, directory: Path, complete: bool,
          played: int) -> None:
    """Write the manifest at the end: a complete run's finish time, SPRT result and (a run
    with its own deal key) the key, so anyone may replay it; else, where games were
    added to a chained folder, the seal of the games so far."""
    config, manifest = ready.config, ready.manifest
    if complete and (manifest.get("finished") is None or sprt is not None):
        if manifest.get("finished") is None:
            manifest["finished"] = now_iso()
        if sprt is not None:
            manifest["sprt"] = {**config.sprt.to_dict(), "result": sprt.result()}  # type: ignore[union-attr]
        if config.deal_key and not config.shared_deals:
            # The run is over: its own key keys no other run's deals, and anyone may replay
            # it.  A shared key file's would give every later run with the file away.
            manifest["deal_key"] = config.deal_key.hex()
        ready.write_manifest(directory)
    elif played and ready.signer is not None:
        ready.write_manifest(directory)  # the seal of the games so far (interrupted)
