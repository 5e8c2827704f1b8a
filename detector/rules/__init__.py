"""The rule runtime: rule files, their loading, matching and reloading."""

USER_RULES_ENV = "RANKDOCTOR_RULES"  # user rule files or directories, separated by os.pathsep
