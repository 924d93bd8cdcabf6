"""``graders serve``: learners upload notebooks and read their feedback within seconds.

    identity   who is asking: tokens the instructor minted, page sessions (LTI to come)
    uploads    a notebook read off the wire, within the size limit, checked as grading reads it
    attempts   the assignment's limits (max, every_s) and which attempt is the grade of record
    queue      attempts in the gradebook: stored before the answer, claimed once, finished once
    servers    the service's processes and their heartbeats: a dead one's attempts come back
    grader     worker threads grading the queue with the session's warm sandbox
    views      what a learner or an instructor sees of attempts and grades
    app        the ASGI application (Starlette): shared state, errors, language, security
    api, pages the JSON API and the server-written pages
    run        uvicorn, and a clean stop on SIGTERM

The grade of record is saved in the gradebook's ``submissions`` like a batch's grade, so
``graders export``, ``feedback``, ``report`` and the LMS files read it as they read any.
"""
