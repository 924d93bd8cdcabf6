"""Files made for other tools from results: CSV (one writer), Canvas and Moodle imports,
JUnit XML, Gradescope results."""
