"""pytest set-up: the package from this source tree, and the vicms executable ($VICMS_BIN, else build/vicms)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import vicms  # noqa: E402


@pytest.fixture(scope="session")
def vicms_bin():
    try:
        return vicms.find_vicms()
    except FileNotFoundError as e:
        pytest.skip(str(e))
