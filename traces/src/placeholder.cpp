// The trace importer lands here (issue 5).
