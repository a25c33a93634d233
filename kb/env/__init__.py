"""`kb env`: the environment report, configs and pre-flight risks."""
