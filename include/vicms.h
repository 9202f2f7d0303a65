/* vicms: vibro-impact component mode synthesis — umbrella header. */
#pragma once

#include <vicms/sys.h>
#include <vicms/mesh.h>
#include <vicms/fem.h>
#include <vicms/io.h>
#include <vicms/rom.h>
#include <vicms/cms.h>
#include <vicms/contact.h>
#include <vicms/excite.h>
#include <vicms/system.h>
#include <vicms/step.h>
#include <vicms/dual.h>
#include <vicms/coupling.h>
#include <vicms/ensemble.h>
#include <vicms/hb.h>
