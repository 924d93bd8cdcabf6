"""LTI 1.3 Advantage: the course opens from an LMS (Canvas, Moodle), its learners sign in
by the LMS, and their grades of record go back to the LMS's gradebook by themselves.

    platforms     the LMSs a course trusts (``graders lti add-platform``) and their keys
    keys          the tool's own key pairs, rotatable, published at ``/lti/jwks``
    messages      checking a platform's signed message (``id_token``) to the letter
    launch        the routes: OIDC login, launch (resource link and deep linking), JWKS
    deep_linking  the signed answer to a deep-linking request: a link to one assignment
    services      the platform's services: an access token, then calls with their media types
    passback      Assignment and Grade Services: each learner's grade of record, sent once
                  per change, retried until the platform takes it
    roster        Names and Role Provisioning Services: the LMS course's members
    tool_config   what an LMS administrator enters (Canvas's developer key, Moodle's form)

A launch signs the person in exactly as a token does (``identity.Credentials``): an LTI
user is a learner id by the same rule, and has a learner's or an instructor's rights.
"""
