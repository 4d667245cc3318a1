"""The contract every registered figure kind follows, one test generated per kind (a package, so that its
modules' names stay apart from the other test folders')."""
