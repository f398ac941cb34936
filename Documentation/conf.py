# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration: Documentation/ is a standalone tree.
#   sphinx-build -W -b html Documentation build/doc
project = 'sframe-unwind'
copyright = 'the sframe-unwind authors'
master_doc = 'index'
exclude_patterns = []
html_theme = 'alabaster'
