from boostbench.cli import app

app(prog_name="boostbench")
