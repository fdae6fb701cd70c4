/* xml.h — a small event-driven XML reader for instr-score's cubex reader (anchor.xml):
 * elements, attributes, text with the predefined and numeric entities, comments, processing
 * instructions, CDATA and a DOCTYPE without an internal subset. Errors say line and column.
 * Nothing is validated beyond well-formedness of what is read: names match their end tags. */
#ifndef INSTR_SCORE_XML_H
#define INSTR_SCORE_XML_H

#include <stddef.h>

typedef struct xml_attr {
    const char *name, *value; /* value with its entities replaced */
} xml_attr;

typedef struct xml_handler {
    void *ctx;
    /* An element begins. Nonzero stops the parse (the handler wrote its reason to err). */
    int (*start)(void *ctx, const char *name, const xml_attr *attrs, size_t nattrs, char *err,
                 size_t errsize);
    /* An element ends; text is the character data since its last child element (or since
     * its start), entities replaced. Nonzero stops the parse. */
    int (*end)(void *ctx, const char *name, const char *text, char *err, size_t errsize);
} xml_handler;

/* Parses text[0..len). 0, or -1 with "line L, column C: what" (or the handler's reason) in
 * err. */
int xml_parse(const char *text, size_t len, const xml_handler *h, char *err, size_t errsize);

/* An attribute's value, or NULL. */
const char *xml_attr_get(const xml_attr *attrs, size_t n, const char *name);

#endif
