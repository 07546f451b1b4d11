"""Ways to see games: board text, SVG boards and card sheets, the HTML viewer, replay, the
human seat at a terminal, PNG through a browser."""
