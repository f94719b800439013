/* placeholder: being written */
#include "hb_err.h"
