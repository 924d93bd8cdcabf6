"""The door: where text, names and ids from outside become graders' own data, checked once.

    text        text that cannot be stored (not UTF-8 encodable), file names that are not
                UTF-8, and how to show either without crashing what shows it
    identity    which names may identify a learner, and when two ids are one (case) or
                look alike (Unicode's confusables)
    csv_rows    the CSV files graders reads (a roster, a times file), record by record,
                each cell with its line and column
    roster      the class roster: who should hand in, and how each LMS knows them
    lms_download  the learner in each file name of an LMS's "download all submissions"
                (each registered LMS's names: ``lms/``)

Everything from outside (a notebook, an answers file, a folder or file name, an LMS
name, a roster row, a time row) passes one of these before the rest of graders holds it;
what they refuse is that input's problem, said with the file and the place, and never
the batch's.
"""
