#pragma once
/// @file
/// The umbrella header: everything a user of sluice needs.

#include "sluice/body.hpp"
#include "sluice/client.hpp"
#include "sluice/cookies.hpp"
#include "sluice/download.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/http_date.hpp"
#include "sluice/multipart.hpp"
#include "sluice/request.hpp"
#include "sluice/response.hpp"
#include "sluice/retry.hpp"
#include "sluice/url.hpp"
#include "sluice/version.hpp"
