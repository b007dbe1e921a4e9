#ifndef PROACTIVE_CLIBPQ_H
#define PROACTIVE_CLIBPQ_H

// PostgreSQL's client library (Debian's libpq-dev), opened at first use (libpq.c).
//
// libpq and what it links (OpenSSL, Kerberos, LDAP: about twenty libraries) take a noticeable
// part of a short command's start to load (docs/PERFORMANCE.md); linked, every `proactive`
// command would pay for them, even one on a SQLite store. The functions Proactive calls are defined in libpq.c under libpq's own names
// and prototypes (declared by the header below, so a drift is a compile error); each opens
// libpq.so.5 at its first call and forwards to the library's definition.
#include "/usr/include/postgresql/libpq-fe.h"

#endif
