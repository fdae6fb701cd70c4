/* metrics and trace include each other */
#include "../trace/trace.h"
