# family: none
# set: runtime-44
# mode: logprefix
# expect: no such table
# note: out of scope: container log of an experiment tracker's writer whose sqlite database was never initialised
import sqlite3

db = sqlite3.connect("/tmp/runtime44-runs.db")
db.execute("INSERT INTO runs (name, loss) VALUES (?, ?)", ("sft-1", 1.23))
