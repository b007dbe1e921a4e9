// libpq, opened at first use (include/CLibPQ.h says why): each function here has libpq's own
// name and prototype and forwards to the library's definition, found with dlsym in the library
// opened privately (RTLD_LOCAL).
#include "CLibPQ.h"
#include "CDynamicLibrary.h"

static void *libpq;

#define TARGET(NAME) ((__typeof__(NAME) *)dynamic_library_function(&libpq, "libpq.so.5", 0, "libpq-dev", &slot_##NAME, #NAME))
#define SLOT(NAME) static void *slot_##NAME;

SLOT(PQfinish) SLOT(PQstatus) SLOT(PQerrorMessage) SLOT(PQsetNoticeProcessor)
SLOT(PQresultStatus) SLOT(PQresultErrorMessage) SLOT(PQresultErrorField)
SLOT(PQntuples) SLOT(PQnfields) SLOT(PQgetvalue) SLOT(PQgetisnull) SLOT(PQgetlength) SLOT(PQcmdTuples)
SLOT(PQclear) SLOT(PQreset)
SLOT(PQconnectStartParams) SLOT(PQconnectPoll) SLOT(PQsocket) SLOT(PQsetnonblocking) SLOT(PQsendQueryParams)
SLOT(PQflush) SLOT(PQconsumeInput) SLOT(PQisBusy) SLOT(PQgetResult) SLOT(PQbackendPID)

PGconn *PQconnectStartParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return TARGET(PQconnectStartParams)(keywords, values, expand_dbname);
}
PostgresPollingStatusType PQconnectPoll(PGconn *conn) { return TARGET(PQconnectPoll)(conn); }
int PQsocket(const PGconn *conn) { return TARGET(PQsocket)(conn); }
int PQsetnonblocking(PGconn *conn, int arg) { return TARGET(PQsetnonblocking)(conn, arg); }
int PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                      const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    return TARGET(PQsendQueryParams)(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
int PQflush(PGconn *conn) { return TARGET(PQflush)(conn); }
int PQconsumeInput(PGconn *conn) { return TARGET(PQconsumeInput)(conn); }
int PQisBusy(PGconn *conn) { return TARGET(PQisBusy)(conn); }
PGresult *PQgetResult(PGconn *conn) { return TARGET(PQgetResult)(conn); }
int PQbackendPID(const PGconn *conn) { return TARGET(PQbackendPID)(conn); }
void PQfinish(PGconn *conn) { TARGET(PQfinish)(conn); }
void PQreset(PGconn *conn) { TARGET(PQreset)(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return TARGET(PQstatus)(conn); }
char *PQerrorMessage(const PGconn *conn) { return TARGET(PQerrorMessage)(conn); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return TARGET(PQsetNoticeProcessor)(conn, proc, arg);
}
ExecStatusType PQresultStatus(const PGresult *res) { return TARGET(PQresultStatus)(res); }
char *PQresultErrorMessage(const PGresult *res) { return TARGET(PQresultErrorMessage)(res); }
char *PQresultErrorField(const PGresult *res, int fieldcode) { return TARGET(PQresultErrorField)(res, fieldcode); }
int PQntuples(const PGresult *res) { return TARGET(PQntuples)(res); }
int PQnfields(const PGresult *res) { return TARGET(PQnfields)(res); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { return TARGET(PQgetvalue)(res, tup_num, field_num); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return TARGET(PQgetisnull)(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { return TARGET(PQgetlength)(res, tup_num, field_num); }
char *PQcmdTuples(PGresult *res) { return TARGET(PQcmdTuples)(res); }
void PQclear(PGresult *res) { TARGET(PQclear)(res); }
