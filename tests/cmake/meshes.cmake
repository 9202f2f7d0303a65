# The bundled deck (meshes/) through vicms modes on 1, 2 and 3 ranks.
vicms_app_test(meshes)
