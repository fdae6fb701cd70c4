/* utc.c — a time as ISO 8601 UTC text (utc.h). */
#include "utc.h"

#include <stdio.h>

char *instr_utc_iso(char out[INSTR_UTC_ISO_SIZE], time_t t)
{
    long long secs = (long long)t;
    long long days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    /* Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil, inverted). */
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    long long y = yoe + era * 400 + (m <= 2);
    snprintf(out, INSTR_UTC_ISO_SIZE, "%04lld-%02d-%02dT%02d:%02d:%02dZ", y, (int)m, (int)d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
    return out;
}
