"""What graders knows of each LMS's files: one module per LMS, and the registry that reads them.

    canvas     Canvas: its bulk download's file names, its names of the roster's ids, its
               Gradebook import file
    moodle     Moodle: its names of the roster's ids, its CSV grade import file
    contract   what an LMS module declares (``Lms``): its download names, its roster
               columns, its export
    registry   the LMSs, built-in and registered: what intake (download names, roster
               columns), the ``lms`` layout and exports read

Knowledge only: nothing here reads a file or writes one. The intake reads a download's names
and a roster's header with it (``intake.lms_download``, ``intake.roster``), exports write an
LMS's import file with it (``exports.lms``). LTI, the LMS's live door, is ``service/lti/``.
"""

# The built-in LMSs, in the order their download names are tried: for each, the module that
# registers it (``registry.register``).
BUILTIN_LMSS = {
    "canvas": "graders.lms.canvas",
    "moodle": "graders.lms.moodle",
}
