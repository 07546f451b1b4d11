"""``arena ladder``: a round robin of bot specs rated by Bradley–Terry Elo (``ladder.py``) and
its click command (``command.py``)."""
