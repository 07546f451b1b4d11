"""The shared statistics leaves: the Wilson interval and the one verdict rule. They import
nothing else of the arena, so reports and the live standings apply the same rule."""
