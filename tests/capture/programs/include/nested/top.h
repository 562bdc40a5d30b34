#pragma once
#include "sub/inner.h"
