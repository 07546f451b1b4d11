"""Foreign code kept apart: bubblewrap with a seccomp filter and a cgroup, the bot host and its
remote seat, the one privilege drop.

Above ``arena.play`` (a jailed bot is a seat like any other); the engine protocol
(``arena.protocol``) sits in this layer too."""
