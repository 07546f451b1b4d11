"""``arena keys``: your signing key and the keys you trust."""

from __future__ import annotations

from pathlib import Path

import click

from arena.commands.common import (
    ArenaGroup,
)
from arena.commands.user_error import UserError


@click.group("keys", cls=ArenaGroup, invoke_without_command=True)
@click.pass_context
def keys_group(ctx: click.Context) -> None:
    """Your signing key and the keys you trust: who wrote a run folder.

    Every run you play is signed with your Ed25519 key, made on first use in your config
    directory ($ARENA_CONFIG_DIR, else $XDG_CONFIG_HOME/takenoko-arena, else
    ~/.config/takenoko-arena; mode 0600).  `arena report` says whose key signed a run:
    yours, one you trust, or an unknown one (whose games it re-plays before counting them).
    With no subcommand: `arena keys show`.

    \b
    Examples:
      arena keys
      arena keys export --out me.pub
      arena keys trust alice.pub
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(keys_show)


@keys_group.command("show")
def keys_show() -> None:
    """Print your public key and the keys you trust.

    \b
    Example:
      arena keys show
    """
    from arena.runs.keys import (
        KeyFileError,
        config_dir,
        fingerprint,
        own_key,
        public_bytes,
        public_text,
        trusted_keys,
    )

    try:
        public = public_bytes(own_key(create=True))  # type: ignore[arg-type]
        trusted = trusted_keys()
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"your key: {fingerprint(public)} (in {config_dir()})")
    click.echo(public_text(public).rstrip())
    click.echo(f"keys you trust: {len(trusted)}")
    for name in trusted:
        click.echo(f"  {name}")


@keys_group.command("export")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write your public key to FILE (default: print it).")
def keys_export(out: str | None) -> None:
    """Print or write your public key, for whoever reads your runs to trust.

    \b
    Examples:
      arena keys export
      arena keys export --out me.pub
    """
    from arena.runs.keys import KeyFileError, own_key, public_bytes, public_text

    try:
        text = public_text(public_bytes(own_key(create=True)),  # type: ignore[arg-type]
                           "takenoko-arena run signer")
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "x", encoding="ascii") as fh:
            fh.write(text)
    except FileExistsError:
        raise UserError(f"--out {out} exists; choose another file") from None
    except OSError as exc:
        raise UserError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    click.echo(f"your public key written to {out}")


@keys_group.command("trust")
@click.argument("file", type=click.Path(dir_okay=False), metavar="FILE")
def keys_trust(file: str) -> None:
    """Trust the public key in FILE: runs it signed report as signed by a key you trust.

    \b
    Example:
      arena keys trust alice.pub
    """
    from arena.runs.keys import KeyFileError, trust

    try:
        name = trust(Path(file))
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"trusted key {name}: runs it signed are believed")


# ------------------------------------------------------------------ report
