# Prescribed motions of driver joints (speed t + amplitude sin(frequency t)), planar and spatial, against the exact
# angle and the torque the motion needs
vicms_app_test(multibody_drivers)
