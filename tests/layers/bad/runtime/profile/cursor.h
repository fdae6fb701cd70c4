#include "../core/event.h"
