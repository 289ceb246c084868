"""How the front ends say things: sizes and rates, wording to translate, model names, axis ticks, tables and text."""
