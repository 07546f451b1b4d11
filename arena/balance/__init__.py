"""The balance lab: card experiments (``study``), suggested points and the tuning loop.

``arena balance study`` plays the experiment of ``arena/tournament/experiment.py`` through
the tournament runner; ``reports/experiment.py`` analyses its files; ``arena balance
suggest`` and ``arena balance tune`` turn the analysis into card sets.  docs/balance.md
says what each figure means and how it was calibrated.
"""
