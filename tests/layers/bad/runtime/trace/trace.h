#include "../metrics/metrics.h"
#include <stdio.h>
#include "not_here.h"
