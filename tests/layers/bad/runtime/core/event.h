#include "../profile/cursor.h"
