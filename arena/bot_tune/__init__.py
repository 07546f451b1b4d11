"""``arena bots tune``: a search over a bot's declared parameters (``tune.py``), its click
command (``command.py``) and its page (``page.py``)."""
