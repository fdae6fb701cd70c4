/* xray_report.h — the XRay adapter's entry in the runtime's substrate list (runtime/compose/):
 * it wants no events and writes xray.txt at the end when the program has XRay. */
#ifndef INSTR_XRAY_REPORT_H
#define INSTR_XRAY_REPORT_H

#include "../runtime/core/substrate.h"

extern const instr_substrate instr_xray_substrate;

#endif
