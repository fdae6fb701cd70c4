/* xml_str.h — s (NULL: "") as XML text, for an element's content or a quoted attribute
 * (xml_str.c). */
#ifndef INSTR_UTIL_XML_STR_H
#define INSTR_UTIL_XML_STR_H

#include "text.h"

/* XML text: well-formed UTF-8 kept, the rest as entities or U+FFFD. */
extern const instr_escaper instr_escaper_xml;

void instr_wr_xml_str(instr_writer *w, const char *s);

#endif
