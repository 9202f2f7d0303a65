# issue 23: flexible bodies' initial elastic coordinates (initial: static, elastic: [...])
vicms_app_test(multibody_flexible_static)
