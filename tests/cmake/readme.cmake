# The README's commands, run as shown in a scratch copy (issue 24, item 22); the links of README.md and docs/*.md.
vicms_app_test(readme)
