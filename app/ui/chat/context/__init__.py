"""The context gauge: the widget and the counting of the next prompt behind it."""
