"""Start-up and identity: launching the window, whether one can open here, one instance per
data folder, name and icon."""
